// Optimized convolution: aten::convolution.out for Float, default (NCHW) dim
// order, 1-D and 2-D, not transposed. Prepare picks the path from the
// weight's shape and the parameters (pointwise GEMM, im2col + GEMM,
// depthwise direct, a direct first layer, per-group GEMM) and packs constant
// weights once; it declines (NotSupported) everything else, which the
// portable kernel runs.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_convolution.cpp
// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, *, Tensor(a!) out)
void opt_convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                         int64_t groups, Tensor& out);
Error opt_convolution_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                              const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                              int64_t groups, Tensor& out);

// ---- op_conv_bn.cpp
// Fused at method load (the rules of fusion_rules.cpp): a convolution
// whose output only feeds an inference batch norm (whose output only feeds a
// relu / hardtanh). Arguments: the convolution's inputs, the batch norm's
// weight, bias, running mean, running var, momentum and eps, the hardtanh's
// bounds, then the group's output. The batch norm is folded into the
// (constant) weights at prepare, the activation into the output clamp.
Error opt_conv_bn_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                          const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                          IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                          int64_t groups, const Tensor* gamma, const Tensor* beta,
                          const Tensor& mean, const Tensor& var, double momentum, double eps,
                          Tensor& conv_out, Tensor& out);
// The run of etr::conv_bn.fused and etr::conv_bn_relu.fused (the clamp comes
// from the prepared state).
void opt_conv_bn_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups, const Tensor* gamma, const Tensor* beta, const Tensor& mean,
                     const Tensor& var, double momentum, double eps, Tensor& conv_out, Tensor& out);
Error opt_conv_bn_relu_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                               int64_t groups, const Tensor* gamma, const Tensor* beta,
                               const Tensor& mean, const Tensor& var, double momentum, double eps,
                               Tensor& conv_out, Tensor& out);
// etr::conv_bn_silu.fused: conv -> batch norm -> sigmoid -> mul (x * sigmoid(x)),
// same arguments as etr::conv_bn.fused; SiLU runs on each finished block.
Error opt_conv_bn_silu_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                               int64_t groups, const Tensor* gamma, const Tensor* beta,
                               const Tensor& mean, const Tensor& var, double momentum, double eps,
                               Tensor& conv_out, Tensor& out);
Error opt_conv_bn_hardtanh_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                   const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                                   IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                   IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
                                   const Tensor* beta, const Tensor& mean, const Tensor& var,
                                   double momentum, double eps, Scalar min_val, Scalar max_val,
                                   Tensor& conv_out, Tensor& out);
void opt_conv_bn_hardtanh_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                              const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                              int64_t groups, const Tensor* gamma, const Tensor* beta,
                              const Tensor& mean, const Tensor& var, double momentum, double eps,
                              Scalar min_val, Scalar max_val, Tensor& conv_out, Tensor& out);

// etr::conv_bn_hardswish.fused: conv -> batch norm -> hardswish as the
// exporter decomposes it (copy(3) -> add -> clamp -> clamp -> mul -> copy(6)
// -> div, fusion_rules.cpp). Arguments: etr::conv_bn.fused's first 15, the
// copies' inputs (shift, then after the bounds of both clamps the divisor;
// one-element real tensors), conv_out, out. The hardswish runs on each
// finished block of the GEMM paths (util/gemm.h post), else over out.
Error opt_conv_bn_hardswish_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                    const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                                    IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                    IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
                                    const Tensor* beta, const Tensor& mean, const Tensor& var,
                                    double momentum, double eps, const Tensor& shift,
                                    std::optional<Scalar> min1, std::optional<Scalar> max1,
                                    std::optional<Scalar> min2, std::optional<Scalar> max2,
                                    const Tensor& divisor, Tensor& conv_out, Tensor& out);
void opt_conv_bn_hardswish_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                               int64_t groups, const Tensor* gamma, const Tensor* beta,
                               const Tensor& mean, const Tensor& var, double momentum, double eps,
                               const Tensor& shift, std::optional<Scalar> min1,
                               std::optional<Scalar> max1, std::optional<Scalar> min2,
                               std::optional<Scalar> max2, const Tensor& divisor, Tensor& conv_out,
                               Tensor& out);

// etr::mul_conv_bn.fused: mul(x, s) -> conv -> batch norm, s a channel
// scale [1, C, 1, 1] (squeeze-excite), the convolution pointwise with
// groups 1, batch 1: the GEMM scales x's channels as it packs them
// (GemmArgs::k_scale), with no pass of its own. Arguments: the mul's two
// operands (either order), then etr::conv_bn.fused's without its input,
// a scratch (the mul's output: apart from every input, at least as large as
// the output), out.
Error opt_mul_conv_bn_prepare(KernelPrepareContext& ctx, const Tensor& a, const Tensor& b,
                              const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef dilation, bool transposed,
                              IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
                              const Tensor* beta, const Tensor& mean, const Tensor& var,
                              double momentum, double eps, Tensor& scratch, Tensor& out);
void opt_mul_conv_bn_out(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor& weight,
                         const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                         int64_t groups, const Tensor* gamma, const Tensor* beta,
                         const Tensor& mean, const Tensor& var, double momentum, double eps,
                         Tensor& scratch, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptConvolutionKernels[] = {
    make_kernel<&opt_convolution_out, &opt_convolution_prepare>("aten::convolution.out",
                                                                DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_bn_out, &opt_conv_bn_prepare>("etr::conv_bn.fused",
                                                        DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_bn_out, &opt_conv_bn_relu_prepare>("etr::conv_bn_relu.fused",
                                                             DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_bn_hardtanh_out, &opt_conv_bn_hardtanh_prepare>(
        "etr::conv_bn_hardtanh.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_bn_out, &opt_conv_bn_silu_prepare>("etr::conv_bn_silu.fused",
                                                             DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_bn_hardswish_out, &opt_conv_bn_hardswish_prepare>(
        "etr::conv_bn_hardswish.fused",
        DtypeSet::of(ScalarType::Float, ScalarType::Double, ScalarType::Long, ScalarType::Int)),
    make_kernel<&opt_mul_conv_bn_out, &opt_mul_conv_bn_prepare>("etr::mul_conv_bn.fused",
                                                                DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
