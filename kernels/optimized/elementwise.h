// Optimized elementwise kernels: add/sub/mul/div (Tensor-Tensor, any
// broadcast of default-layout Float tensors, vectorized along the innermost
// contiguous run), where.self_out (Bool/Byte mask, Float values) and
// logical_not (Bool to Bool). Prepare declines (NotSupported) other dtypes
// and dim orders; the portable kernels run those.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_binary_arith.cpp
// aten::add.out / sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
void opt_add_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                 Tensor& out);
void opt_sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                 Tensor& out);
Error opt_add_sub_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                          Scalar alpha, Tensor& out);
// aten::mul.out / div.out(Tensor self, Tensor other, *, Tensor(a!) out)
void opt_mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void opt_div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
Error opt_mul_div_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out);

// ---- op_where.cpp
// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
void opt_where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                        const Tensor& other, Tensor& out);
Error opt_where_prepare(KernelPrepareContext& ctx, const Tensor& condition, const Tensor& self,
                        const Tensor& other, Tensor& out);
// aten::logical_not.out(Tensor self, *, Tensor(a!) out)
void opt_logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error opt_logical_not_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptElementwiseKernels[] = {
    make_kernel<&opt_add_out, &opt_add_sub_prepare>("aten::add.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_sub_out, &opt_add_sub_prepare>("aten::sub.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_mul_out, &opt_mul_div_prepare>("aten::mul.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_div_out, &opt_mul_div_prepare>("aten::div.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_where_self_out, &opt_where_prepare>(
        "aten::where.self_out",
        DtypeSet::of(ScalarType::Float, ScalarType::Bool, ScalarType::Byte)),
    make_kernel<&opt_logical_not_out, &opt_logical_not_prepare>("aten::logical_not.out", kBoolType),
};

}  // namespace etr
