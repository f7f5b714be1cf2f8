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

// etr::conv_bn_{hardtanh,relu}_dw.fused (op_conv_bn.cpp): an
// inverted-residual block's expansion and depthwise, conv -> batch norm ->
// activation twice (ReLU6 in MobileNetV2, ReLU in MobileNetV3's first
// blocks), the first a pointwise convolution and the
// second a depthwise one over its output. Arguments: etr::conv_bn.fused's
// first 15 for the expansion (then the hardtanh's bounds), the same
// without the input for the depthwise (then its hardtanh's bounds), a
// scratch (the expansion's own output), out. Both batch norms are folded
// into the weights at prepare; run takes bands of output rows, each
// expanding just the input rows it reads into cache (the rows it shares
// with the previous band kept) and running the depthwise over them, so the
// expanded tensor never goes to memory; threads take runs of bands.
// Declined (the calls then run as two fused convolutions) unless the
// expansion is 1x1 with stride 1 and no padding, batch 1, the depthwise
// takes the channel-blocked kernel (opt::depthwise_c8_band_supported,
// AVX2) at stride 2, and the expanded tensor is at least 1 MiB (where it
// measured faster; see prepare_band). (EfficientNet's SiLU pair measured
// no faster banded: its SiLUs, not memory, bound those layers.)
Error opt_conv_bn_hardtanh_dw_prepare(
    KernelPrepareContext& ctx, const Tensor& input, const Tensor& w1, const Tensor* b1,
    IntArrayRef stride1, IntArrayRef padding1, IntArrayRef dilation1, bool transposed1,
    IntArrayRef output_padding1, int64_t groups1, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double momentum1, double eps1, Scalar min1,
    Scalar max1, const Tensor& w2, const Tensor* b2, IntArrayRef stride2, IntArrayRef padding2,
    IntArrayRef dilation2, bool transposed2, IntArrayRef output_padding2, int64_t groups2,
    const Tensor* gamma2, const Tensor* beta2, const Tensor& mean2, const Tensor& var2,
    double momentum2, double eps2, Scalar min2, Scalar max2, Tensor& scratch, Tensor& out);
void opt_conv_bn_hardtanh_dw_out(
    KernelContext& ctx, const Tensor& input, const Tensor& w1, const Tensor* b1,
    IntArrayRef stride1, IntArrayRef padding1, IntArrayRef dilation1, bool transposed1,
    IntArrayRef output_padding1, int64_t groups1, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double momentum1, double eps1, Scalar min1,
    Scalar max1, const Tensor& w2, const Tensor* b2, IntArrayRef stride2, IntArrayRef padding2,
    IntArrayRef dilation2, bool transposed2, IntArrayRef output_padding2, int64_t groups2,
    const Tensor* gamma2, const Tensor* beta2, const Tensor& mean2, const Tensor& var2,
    double momentum2, double eps2, Scalar min2, Scalar max2, Tensor& scratch, Tensor& out);
Error opt_conv_bn_relu_dw_prepare(
    KernelPrepareContext& ctx, const Tensor& input, const Tensor& w1, const Tensor* b1,
    IntArrayRef stride1, IntArrayRef padding1, IntArrayRef dilation1, bool transposed1,
    IntArrayRef output_padding1, int64_t groups1, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double momentum1, double eps1, const Tensor& w2,
    const Tensor* b2, IntArrayRef stride2, IntArrayRef padding2, IntArrayRef dilation2,
    bool transposed2, IntArrayRef output_padding2, int64_t groups2, const Tensor* gamma2,
    const Tensor* beta2, const Tensor& mean2, const Tensor& var2, double momentum2, double eps2,
    Tensor& scratch, Tensor& out);
void opt_conv_bn_relu_dw_out(KernelContext& ctx, const Tensor& input, const Tensor& w1,
                             const Tensor* b1, IntArrayRef stride1, IntArrayRef padding1,
                             IntArrayRef dilation1, bool transposed1, IntArrayRef output_padding1,
                             int64_t groups1, const Tensor* gamma1, const Tensor* beta1,
                             const Tensor& mean1, const Tensor& var1, double momentum1, double eps1,
                             const Tensor& w2, const Tensor* b2, IntArrayRef stride2,
                             IntArrayRef padding2, IntArrayRef dilation2, bool transposed2,
                             IntArrayRef output_padding2, int64_t groups2, const Tensor* gamma2,
                             const Tensor* beta2, const Tensor& mean2, const Tensor& var2,
                             double momentum2, double eps2, Tensor& scratch, Tensor& out);

// etr::bn_relu_conv_bn_relu.fused (op_conv_bn.cpp): batch norm -> relu ->
// conv -> batch norm -> relu, the first pair a DenseNet's pre-activation
// whose output only feeds the convolution. The first batch norm becomes a
// per-channel scale and shift that the GEMM applies, with the clamp at 0,
// as it packs the input (GemmArgs::k_shift), so the normalized tensor is
// never written; the second is folded into the weights. Arguments: the
// first batch norm's inputs (input, weight, bias, mean, var, momentum,
// eps), etr::conv_bn.fused's without its input, a scratch (the first batch
// norm's output, apart from the input; it must hold the output), out.
// Declined (the steps then run as etr::batch_norm_relu.fused and
// etr::conv_bn_relu.fused) unless the convolution is 1x1 at stride 1
// without padding, groups 1, batch 1, with constant weights and batch norm
// tensors, and its weights were packed.
Error opt_bn_relu_conv_bn_relu_prepare(
    KernelPrepareContext& ctx, const Tensor& x, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double momentum1, double eps1, const Tensor& weight,
    const Tensor* bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
    bool transposed, IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
    const Tensor* beta, const Tensor& mean, const Tensor& var, double momentum, double eps,
    Tensor& scratch, Tensor& out);
void opt_bn_relu_conv_bn_relu_out(KernelContext& ctx, const Tensor& x, const Tensor* gamma1,
                                  const Tensor* beta1, const Tensor& mean1, const Tensor& var1,
                                  double momentum1, double eps1, const Tensor& weight,
                                  const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                                  int64_t groups, const Tensor* gamma, const Tensor* beta,
                                  const Tensor& mean, const Tensor& var, double momentum,
                                  double eps, Tensor& scratch, Tensor& out);

// ---- op_conv_avg_pool.cpp
// etr::conv_avg_pool.fused: a 1x1 convolution (stride 1, no padding, groups
// 1, constant weights and bias) whose output only feeds avg_pool2d with a
// 2x2 window at stride 2, no padding, ceil_mode off and no divisor
// override (a DenseNet's transition layer): the input is pooled first and
// the convolution runs over the pooled map, a quarter of the work.
// Arguments: the convolution's inputs, the pooling's parameters, a scratch
// (the convolution's own output) that must hold the pooled input, out.
// Anything else is declined and the calls run apart.
Error opt_conv_avg_pool_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                                IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                IntArrayRef output_padding, int64_t groups, IntArrayRef kernel_size,
                                IntArrayRef pool_stride, IntArrayRef pool_padding, bool ceil_mode,
                                bool count_include_pad, std::optional<int64_t> divisor_override,
                                Tensor& scratch, Tensor& out);
void opt_conv_avg_pool_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                           const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                           int64_t groups, IntArrayRef kernel_size, IntArrayRef pool_stride,
                           IntArrayRef pool_padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override, Tensor& scratch, Tensor& out);

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
    make_kernel<&opt_conv_bn_hardtanh_dw_out, &opt_conv_bn_hardtanh_dw_prepare>(
        "etr::conv_bn_hardtanh_dw.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_bn_relu_dw_out, &opt_conv_bn_relu_dw_prepare>(
        "etr::conv_bn_relu_dw.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_bn_relu_conv_bn_relu_out, &opt_bn_relu_conv_bn_relu_prepare>(
        "etr::bn_relu_conv_bn_relu.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_conv_avg_pool_out, &opt_conv_avg_pool_prepare>(
        "etr::conv_avg_pool.fused", DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
