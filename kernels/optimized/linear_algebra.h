// Optimized matrix products on the GEMM engine (util/gemm.h): mm, bmm, addmm
// and linear for Float in the default dim order (prepare declines everything
// else with NotSupported, which the portable kernels run). Operands that are
// program constants (weights) are packed once at prepare into method memory;
// the others are packed per call from scratch memory.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_matmul.cpp
// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void opt_mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error opt_mm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2,
                     Tensor& out);
// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void opt_bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error opt_bmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2,
                      Tensor& out);
// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//   Tensor(a!) out)
void opt_addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                   Scalar beta, Scalar alpha, Tensor& out);
Error opt_addmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, Scalar beta, Scalar alpha, Tensor& out);
// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
void opt_linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                    const Tensor* bias, Tensor& out);
Error opt_linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor* bias, Tensor& out);
// The fused linear layers of fusion_rules.cpp (a constant
// weight's permute_copy absorbed into the addmm / mm reading it):
// etr::linear.fused(Tensor input, Tensor weight, Tensor? bias, *, Tensor(a!) out)
// runs as aten::linear.out; etr::linear_nobias.fused has no bias argument.
void opt_linear_nobias_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                           Tensor& out);
Error opt_linear_nobias_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor& weight, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptLinearAlgebraKernels[] = {
    make_kernel<&opt_mm_out, &opt_mm_prepare>("aten::mm.out", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_bmm_out, &opt_bmm_prepare>("aten::bmm.out", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_addmm_out, &opt_addmm_prepare>("aten::addmm.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_linear_out, &opt_linear_prepare>("aten::linear.out",
                                                      DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_linear_out, &opt_linear_prepare>("etr::linear.fused",
                                                      DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_linear_nobias_out, &opt_linear_nobias_prepare>(
        "etr::linear_nobias.fused", DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
