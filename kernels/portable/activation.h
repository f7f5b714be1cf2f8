// Activations (relu, gelu, hardtanh, leaky_relu, elu), clamping and
// inference-time dropout. Computed in self's dtype (clamp: the promoted
// dtype of self and the bounds) and cast to out; NaN inputs stay NaN.
// Prepare steps check dtypes, torch.can_cast to out and the constant
// arguments; run() resizes out and computes. Parameters follow the ATen
// schema in order, outs last.
#pragma once

#include <optional>

#include "kernels/portable/util/elementwise_prepare.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_activation.cpp
// aten::relu.out(Tensor self, *, Tensor(a!) out); prepare: unary_real_prepare.
void relu_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
void gelu_out(KernelContext& ctx, const Tensor& self, StringView approximate, Tensor& out);
Error gelu_prepare(KernelPrepareContext& ctx, const Tensor& self, StringView approximate,
                   Tensor& out);
// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
void hardtanh_out(KernelContext& ctx, const Tensor& self, Scalar min_val, Scalar max_val,
                  Tensor& out);
Error hardtanh_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar min_val,
                       Scalar max_val, Tensor& out);
// aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
void leaky_relu_out(KernelContext& ctx, const Tensor& self, Scalar negative_slope, Tensor& out);
Error leaky_relu_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar negative_slope,
                         Tensor& out);
// aten::elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *,
//               Tensor(a!) out)
void elu_out(KernelContext& ctx, const Tensor& self, Scalar alpha, Scalar scale, Scalar input_scale,
             Tensor& out);
Error elu_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar alpha, Scalar scale,
                  Scalar input_scale, Tensor& out);

// ---- op_glu.cpp: out = a * sigmoid(b) for the halves a, b of self along
// dim (floating; an odd size is refused at run).
// aten::glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)
void glu_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out);
Error glu_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, Tensor& out);

// ---- op_clamp.cpp: at least one bound; the promoted dtype must not be bool.
// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
void clamp_out(KernelContext& ctx, const Tensor& self, std::optional<Scalar> min,
               std::optional<Scalar> max, Tensor& out);
Error clamp_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<Scalar> min,
                    std::optional<Scalar> max, Tensor& out);
// aten::clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
void clamp_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor* min, const Tensor* max,
                      Tensor& out);
Error clamp_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor* min,
                           const Tensor* max, Tensor& out);

// ---- op_dropout.cpp: train=false (or p == 0) copies the input with an
// all-true mask; p == 1 while training drops everything. Random dropout
// (0 < p < 1 while training) is refused at load (NotImplemented).
// aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0,
//   Tensor(b!) out1)
void native_dropout_out(KernelContext& ctx, const Tensor& input, double p,
                        std::optional<bool> train, Tensor& out0, Tensor& out1);
Error native_dropout_prepare(KernelPrepareContext& ctx, const Tensor& input, double p,
                             std::optional<bool> train, Tensor& out0, Tensor& out1);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kActivationKernels[] = {
    make_kernel<&relu_out, &unary_real_prepare>("aten::relu.out", kRealTypes),
    make_kernel<&gelu_out, &gelu_prepare>("aten::gelu.out", kFloatingTypes),
    make_kernel<&hardtanh_out, &hardtanh_prepare>("aten::hardtanh.out", kRealTypes),
    make_kernel<&leaky_relu_out, &leaky_relu_prepare>("aten::leaky_relu.out", kFloatingTypes),
    make_kernel<&elu_out, &elu_prepare>("aten::elu.out", kFloatingTypes),
    make_kernel<&glu_out, &glu_prepare>("aten::glu.out", kFloatingTypes),
    make_kernel<&clamp_out, &clamp_prepare>("aten::clamp.out", kRealAndBoolTypes),
    make_kernel<&clamp_tensor_out, &clamp_tensor_prepare>("aten::clamp.Tensor_out",
                                                          kRealAndBoolTypes),
    // Moves bytes unless it drops everything: any dtype (p == 1 needs a floating input).
    make_kernel<&native_dropout_out, &native_dropout_prepare>("aten::native_dropout.out",
                                                              kAllTypes),
};

}  // namespace etr
