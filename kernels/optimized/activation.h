// Optimized activations for contiguous Float tensors: relu, hardtanh, clamp
// (Scalar bounds), sigmoid, gelu ('none' and 'tanh'), vectorized by
// vec_math.h and threaded over large tensors. Prepare declines
// (NotSupported) other dtypes, dim orders and NaN bounds; portable runs them.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_activation.cpp
// aten::relu.out(Tensor self, *, Tensor(a!) out)
void opt_relu_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::sigmoid.out(Tensor self, *, Tensor(a!) out)
void opt_sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// The prepare of both: Float self and out, default dim order.
Error opt_unary_float_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
// aten::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out)
void opt_gelu_out(KernelContext& ctx, const Tensor& self, StringView approximate, Tensor& out);
Error opt_gelu_prepare(KernelPrepareContext& ctx, const Tensor& self, StringView approximate,
                       Tensor& out);
// The fused gelu -> _clone_dim_order of fusion_rules.cpp: the GELU written
// straight into the clone's output (through scratch, the gelu's own output,
// when out partly overlaps self).
// etr::gelu_clone.fused(Tensor self, str approximate, int[]? dim_order, Tensor(b!) scratch, *,
//   Tensor(a!) out)
void opt_gelu_clone_out(KernelContext& ctx, const Tensor& self, StringView approximate,
                        std::optional<IntArrayRef> dim_order, Tensor& scratch, Tensor& out);
Error opt_gelu_clone_prepare(KernelPrepareContext& ctx, const Tensor& self, StringView approximate,
                             std::optional<IntArrayRef> dim_order, Tensor& scratch, Tensor& out);
// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
void opt_hardtanh_out(KernelContext& ctx, const Tensor& self, Scalar min_val, Scalar max_val,
                      Tensor& out);
Error opt_hardtanh_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar min_val,
                           Scalar max_val, Tensor& out);
// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
void opt_clamp_out(KernelContext& ctx, const Tensor& self, std::optional<Scalar> min,
                   std::optional<Scalar> max, Tensor& out);
Error opt_clamp_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<Scalar> min,
                        std::optional<Scalar> max, Tensor& out);
// etr::hardswish.fused (fusion_rules.cpp): hardswish as the exporter
// decomposes it, add(x, s) -> clamp -> clamp -> mul(x, .) -> div(., d) with
// d a _to_dim_order_copy of a constant, in one pass over x. Arguments: the
// add's self and other (alpha is 1), both clamps' bounds, the copy's input
// (the divisor: Long, Int, Float or Double; every other tensor Float), out.
void opt_hardswish_fused_out(KernelContext& ctx, const Tensor& self, const Tensor& shift,
                             std::optional<Scalar> min1, std::optional<Scalar> max1,
                             std::optional<Scalar> min2, std::optional<Scalar> max2,
                             const Tensor& divisor, Tensor& out);
Error opt_hardswish_fused_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  const Tensor& shift, std::optional<Scalar> min1,
                                  std::optional<Scalar> max1, std::optional<Scalar> min2,
                                  std::optional<Scalar> max2, const Tensor& divisor, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptActivationKernels[] = {
    make_kernel<&opt_relu_out, &opt_unary_float_prepare>("aten::relu.out",
                                                         DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_sigmoid_out, &opt_unary_float_prepare>("aten::sigmoid.out",
                                                            DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_gelu_out, &opt_gelu_prepare>("aten::gelu.out",
                                                  DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_gelu_clone_out, &opt_gelu_clone_prepare>("etr::gelu_clone.fused",
                                                              DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_hardtanh_out, &opt_hardtanh_prepare>("aten::hardtanh.out",
                                                          DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_clamp_out, &opt_clamp_prepare>("aten::clamp.out",
                                                    DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_hardswish_fused_out, &opt_hardswish_fused_prepare>(
        "etr::hardswish.fused",
        DtypeSet::of(ScalarType::Float, ScalarType::Double, ScalarType::Long, ScalarType::Int)),
};

}  // namespace etr
