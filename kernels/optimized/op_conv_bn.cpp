// The fused convolution -> batch norm (-> relu / hardtanh / SiLU / the
// exporter's decomposed hardswish) kernels (etr::conv_bn*.fused), and the
// squeeze-excite scale -> convolution -> batch norm one
// (etr::mul_conv_bn.fused), formed at method load by the rules of
// fusion_rules.cpp: prepare folds the batch norm into constant weights and
// bias and records the activation; run is the convolution of
// op_convolution.cpp with them (conv_internal.h).
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/conv_internal.h"
#include "kernels/optimized/convolution.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"

namespace etr {

using internal::ConvState;

namespace {

// Folds the batch norm into constant weights and bias: per output channel
// c, s = gamma[c] / sqrt(var[c] + eps), W'[c] = W[c] * s and
// b'[c] = (b[c] - mean[c]) * s + beta[c] (in double, rounded once).
Error prepare_fused(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                    const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                    IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                    int64_t groups, const Tensor* gamma, const Tensor* beta, const Tensor& mean,
                    const Tensor& var, double eps, float lo, float hi, bool silu,
                    const Tensor& conv_out, const Tensor& out, size_t first_arg = 0) {
  internal::ConvGeom g;
  if (!internal::conv_accepts(input, weight, bias, stride, padding, dilation, transposed,
                              output_padding, groups, out, &g) ||
      conv_out.dtype() != ScalarType::Float || !is_default_layout(conv_out) ||
      conv_out.dim() != out.dim() || std::isnan(lo) || std::isnan(hi) || !(eps >= 0.0)) {
    return Error::NotSupported;
  }
  // Arguments (after first_arg others): 1 weight, 2 bias, 9 gamma, 10 beta,
  // 11 mean, 12 var.
  auto constant = [&](size_t i) { return ctx.is_constant_arg(first_arg + i); };
  if (!constant(1) || (bias != nullptr && !constant(2)) || (gamma != nullptr && !constant(9)) ||
      (beta != nullptr && !constant(10)) || !constant(11) || !constant(12)) {
    return Error::NotSupported;
  }
  const int64_t c = g.c_out;
  for (const Tensor* t : {gamma, beta, &mean, &var, bias}) {
    if (t != nullptr && (t->dtype() != ScalarType::Float || t->dim() != 1 || t->size(0) != c)) {
      return Error::NotSupported;
    }
  }
  const size_t k = static_cast<size_t>(weight.numel() / (c == 0 ? 1 : c));
  if (c == 0 || static_cast<size_t>(weight.numel()) != k * static_cast<size_t>(c)) {
    return Error::NotSupported;
  }
  auto* w2 = static_cast<float*>(ctx.allocate(static_cast<size_t>(weight.numel()) * 4, 64));
  auto* b2 = static_cast<float*>(ctx.allocate(static_cast<size_t>(c) * 4, 64));
  ETR_CHECK_OR_FAIL(w2 != nullptr && b2 != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the folded weights (%zu bytes)", ctx.op_name(),
                    static_cast<size_t>(weight.numel() + c) * 4);
  const float* w = weight.const_data_ptr<float>();
  for (int64_t oc = 0; oc < c; ++oc) {
    const double gam = gamma == nullptr ? 1.0 : gamma->const_data_ptr<float>()[oc];
    const double bet = beta == nullptr ? 0.0 : beta->const_data_ptr<float>()[oc];
    const double b0 = bias == nullptr ? 0.0 : bias->const_data_ptr<float>()[oc];
    const double s = gam / std::sqrt(static_cast<double>(var.const_data_ptr<float>()[oc]) + eps);
    for (size_t i = 0; i < k; ++i) {
      w2[oc * static_cast<int64_t>(k) + static_cast<int64_t>(i)] =
          static_cast<float>(w[oc * static_cast<int64_t>(k) + static_cast<int64_t>(i)] * s);
    }
    b2[oc] = static_cast<float>((b0 - mean.const_data_ptr<float>()[oc]) * s + bet);
  }
  ConvState* st = internal::make_conv_state(ctx, g, w2);
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the convolution's packed state", ctx.op_name());
  st->folded_weight = w2;
  st->folded_bias = b2;
  st->lo = lo;
  st->hi = hi;
  st->silu = silu;
  ctx.set_state(st);
  return Error::Ok;
}

bool share_memory(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  return a0 != nullptr && b0 != nullptr && a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// Computes into `out`, or, when the memory plan put `out` over the input or
// weights (dead once the convolution has run), into the convolution's own
// output slot `conv_out` (the loader checked it is apart from them) and
// moves the result; an `out` exactly over the input is written in place
// where the kernel allows it (internal::conv_in_place_ok).
void run_fused(KernelContext& ctx, const Tensor& input, const Tensor& weight, IntArrayRef stride,
               IntArrayRef padding, IntArrayRef dilation, int64_t groups, Tensor& conv_out,
               Tensor& out, const opt::UnaryParams* post = nullptr) {
  const ConvState* st = ctx.state<ConvState>();
  ETR_KERNEL_CHECK(ctx, st != nullptr && st->folded_weight != nullptr, Error::Internal,
                   "%s: fused convolution reached run without its folded weights", ctx.op_name());
  // Over the input itself (the same memory and size) only where the kernel
  // allows it (the channel-blocked depthwise one at stride 1).
  const bool over_input = out.const_data() == input.const_data() && out.nbytes() == input.nbytes();
  const bool direct = !share_memory(out, weight) &&
                      (!share_memory(out, input) ||
                       (over_input && internal::conv_in_place_ok(ctx, st, input, weight, stride,
                                                                 padding, dilation, groups)));
  Tensor& dst = direct ? out : conv_out;
  internal::run_conv(ctx, st, input, weight, st->folded_weight, st->folded_bias, stride, padding,
                     dilation, groups, dst, post);
  if (direct || ctx.failure_state() != Error::Ok) return;
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, dst.sizes()));
  std::memmove(out.mutable_data(), dst.const_data(), dst.nbytes());
}

constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

Error opt_conv_bn_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                          const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                          IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                          int64_t groups, const Tensor* gamma, const Tensor* beta,
                          const Tensor& mean, const Tensor& var, double /*momentum*/, double eps,
                          Tensor& conv_out, Tensor& out) {
  return prepare_fused(ctx, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups, gamma, beta, mean, var, eps, -kInf, kInf, false,
                       conv_out, out);
}

// Also the run of etr::conv_bn_relu.fused: the activation's bounds are in the
// prepared state.
void opt_conv_bn_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* /*bias*/, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool, IntArrayRef, int64_t groups, const Tensor*,
                     const Tensor*, const Tensor&, const Tensor&, double, double, Tensor& conv_out,
                     Tensor& out) {
  run_fused(ctx, input, weight, stride, padding, dilation, groups, conv_out, out);
}

Error opt_conv_bn_relu_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                               int64_t groups, const Tensor* gamma, const Tensor* beta,
                               const Tensor& mean, const Tensor& var, double /*momentum*/,
                               double eps, Tensor& conv_out, Tensor& out) {
  return prepare_fused(ctx, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups, gamma, beta, mean, var, eps, 0.0f, kInf, false,
                       conv_out, out);
}

Error opt_conv_bn_silu_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                               int64_t groups, const Tensor* gamma, const Tensor* beta,
                               const Tensor& mean, const Tensor& var, double /*momentum*/,
                               double eps, Tensor& conv_out, Tensor& out) {
  return prepare_fused(ctx, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups, gamma, beta, mean, var, eps, -kInf, kInf, true,
                       conv_out, out);
}

Error opt_conv_bn_hardtanh_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                   const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                                   IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                   IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
                                   const Tensor* beta, const Tensor& mean, const Tensor& var,
                                   double /*momentum*/, double eps, Scalar min_val, Scalar max_val,
                                   Tensor& conv_out, Tensor& out) {
  return prepare_fused(ctx, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups, gamma, beta, mean, var, eps,
                       scalar_to<float>(min_val), scalar_to<float>(max_val), false, conv_out, out);
}

void opt_conv_bn_hardtanh_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                              const Tensor* /*bias*/, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, bool, IntArrayRef, int64_t groups,
                              const Tensor*, const Tensor*, const Tensor&, const Tensor&, double,
                              double, Scalar, Scalar, Tensor& conv_out, Tensor& out) {
  run_fused(ctx, input, weight, stride, padding, dilation, groups, conv_out, out);
}

namespace {

// The value of a one-element Long, Int, Float or Double tensor as float (what
// the exporter's _to_dim_order_copy to Float makes of it); false otherwise.
bool one_value(const Tensor& t, float* v) {
  if (t.numel() != 1) return false;
  switch (t.dtype()) {
    case ScalarType::Float: *v = t.const_data_ptr<float>()[0]; return true;
    case ScalarType::Double: *v = static_cast<float>(t.const_data_ptr<double>()[0]); return true;
    case ScalarType::Long: *v = static_cast<float>(t.const_data_ptr<int64_t>()[0]); return true;
    case ScalarType::Int: *v = static_cast<float>(t.const_data_ptr<int32_t>()[0]); return true;
    default: return false;
  }
}

bool bound_ok(const std::optional<Scalar>& s) {
  return !s.has_value() || !(s->is_floating() && std::isnan(s->to_double()));
}

float bound_or(const std::optional<Scalar>& s, float absent) {
  return s.has_value() ? scalar_to<float>(*s) : absent;
}

}  // namespace

Error opt_conv_bn_hardswish_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                    const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                                    IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                    IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
                                    const Tensor* beta, const Tensor& mean, const Tensor& var,
                                    double /*momentum*/, double eps, const Tensor& shift,
                                    std::optional<Scalar> min1, std::optional<Scalar> max1,
                                    std::optional<Scalar> min2, std::optional<Scalar> max2,
                                    const Tensor& divisor, Tensor& conv_out, Tensor& out) {
  float v = 0.0f;
  if (!one_value(shift, &v) || !one_value(divisor, &v) || !bound_ok(min1) || !bound_ok(max1) ||
      !bound_ok(min2) || !bound_ok(max2) || (!min1.has_value() && !max1.has_value()) ||
      (!min2.has_value() && !max2.has_value())) {
    return Error::NotSupported;  // the steps run one by one
  }
  return prepare_fused(ctx, input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups, gamma, beta, mean, var, eps, -kInf, kInf, false,
                       conv_out, out);
}

void opt_conv_bn_hardswish_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor* /*bias*/, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef dilation, bool, IntArrayRef, int64_t groups,
                               const Tensor*, const Tensor*, const Tensor&, const Tensor&, double,
                               double, const Tensor& shift, std::optional<Scalar> min1,
                               std::optional<Scalar> max1, std::optional<Scalar> min2,
                               std::optional<Scalar> max2, const Tensor& divisor, Tensor& conv_out,
                               Tensor& out) {
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kHardswish;
  ETR_KERNEL_CHECK(ctx, one_value(shift, &p.shift) && one_value(divisor, &p.divisor),
                   Error::InvalidArgument,
                   "%s: hardswish shift %s and divisor %s must be one-element real tensors",
                   ctx.op_name(), ShapeText(shift).c_str(), ShapeText(divisor).c_str());
  p.lo = bound_or(min1, -kInf);
  p.hi = bound_or(max1, kInf);
  p.lo2 = bound_or(min2, -kInf);
  p.hi2 = bound_or(max2, kInf);
  run_fused(ctx, input, weight, stride, padding, dilation, groups, conv_out, out, &p);
}

namespace {

// For etr::mul_conv_bn.fused: which of the mul's operands is the activation
// x [1, C, H, W] (H * W > 1) and which the channel scale s [1, C, 1, 1]
// (either order, both Float, default dim order); false when neither fits.
bool split_scale(const Tensor& a, const Tensor& b, const Tensor** x, const Tensor** s) {
  for (int swap = 0; swap < 2; ++swap) {
    const Tensor& u = swap == 0 ? a : b;
    const Tensor& v = swap == 0 ? b : a;
    if (u.dim() != 4 || v.dim() != 4 || u.dtype() != ScalarType::Float ||
        v.dtype() != ScalarType::Float || !is_default_layout(u) || !is_default_layout(v)) {
      return false;
    }
    if (u.size(0) == 1 && v.size(0) == 1 && u.size(1) == v.size(1) && v.size(2) == 1 &&
        v.size(3) == 1 && u.size(2) * u.size(3) > 1) {
      *x = &u;
      *s = &v;
      return true;
    }
  }
  return false;
}

}  // namespace

Error opt_mul_conv_bn_prepare(KernelPrepareContext& ctx, const Tensor& a, const Tensor& b,
                              const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef dilation, bool transposed,
                              IntArrayRef output_padding, int64_t groups, const Tensor* gamma,
                              const Tensor* beta, const Tensor& mean, const Tensor& var,
                              double /*momentum*/, double eps, Tensor& scratch, Tensor& out) {
  const Tensor* x = nullptr;
  const Tensor* s = nullptr;
  // A pointwise convolution (1x1, stride 1, no padding), groups 1: the GEMM
  // path, which scales its input as it packs it. Up to kMinScaledChannels
  // output channels the GEMM reads its input in place instead of packing
  // it (faster than a packed scaled copy, measured on MobileNetV3 and
  // EfficientNet-B0): the steps run apart.
  constexpr int64_t kMinScaledChannels = 33;
  bool unit = weight.dim() == 4 && weight.size(2) == 1 && weight.size(3) == 1 && groups == 1 &&
              weight.size(0) >= kMinScaledChannels;
  for (size_t i = 0; unit && i < stride.size(); ++i) unit = stride[i] == 1;
  for (size_t i = 0; unit && i < padding.size(); ++i) unit = padding[i] == 0;
  if (!unit || !split_scale(a, b, &x, &s)) return Error::NotSupported;  // the steps run apart
  // The scratch (the mul's output, apart from every input) must hold the
  // convolution's output when `out` lies over an input.
  const size_t out_bytes = static_cast<size_t>(weight.size(0)) *
                           static_cast<size_t>(x->size(2) * x->size(3)) * sizeof(float);
  if (scratch.dtype() != ScalarType::Float || scratch.capacity_bytes() < out_bytes) {
    return Error::NotSupported;
  }
  return prepare_fused(ctx, *x, weight, bias, stride, padding, dilation, transposed, output_padding,
                       groups, gamma, beta, mean, var, eps, -kInf, kInf, false, out, out, 1);
}

void opt_mul_conv_bn_out(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor& weight,
                         const Tensor* /*bias*/, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, bool, IntArrayRef, int64_t groups, const Tensor*,
                         const Tensor*, const Tensor&, const Tensor&, double, double,
                         Tensor& scratch, Tensor& out) {
  const Tensor* x = nullptr;
  const Tensor* s = nullptr;
  ETR_KERNEL_CHECK(ctx, split_scale(a, b, &x, &s), Error::InvalidArgument,
                   "%s: operands %s and %s are not an activation [1, C, H, W] and a channel "
                   "scale [1, C, 1, 1]",
                   ctx.op_name(), ShapeText(a).c_str(), ShapeText(b).c_str());
  const ConvState* st = ctx.state<ConvState>();
  ETR_KERNEL_CHECK(ctx, st != nullptr && st->folded_weight != nullptr, Error::Internal,
                   "%s: fused convolution reached run without its folded weights", ctx.op_name());
  const float* scale = s->const_data_ptr<float>();
  if (!share_memory(out, *x) && !share_memory(out, *s) && !share_memory(out, weight)) {
    internal::run_conv(ctx, st, *x, weight, st->folded_weight, st->folded_bias, stride, padding,
                       dilation, groups, out, nullptr, scale);
    return;
  }
  // `out` lies over an input (dead once the convolution has run): compute
  // into a view of the scratch with the output's sizes, then move it.
  int32_t sizes[4] = {1, static_cast<int32_t>(weight.size(0)), static_cast<int32_t>(x->size(2)),
                      static_cast<int32_t>(x->size(3))};
  uint8_t order[4] = {0, 1, 2, 3};
  int64_t strides[4] = {};
  const size_t bytes = static_cast<size_t>(sizes[1]) * static_cast<size_t>(sizes[2]) *
                       static_cast<size_t>(sizes[3]) * sizeof(float);
  ETR_KERNEL_CHECK(ctx, scratch.capacity_bytes() >= bytes, Error::Internal,
                   "%s: scratch of %zu bytes cannot hold the %zu-byte output", ctx.op_name(),
                   scratch.capacity_bytes(), bytes);
  Tensor view(ScalarType::Float, size_t{4}, sizes, order, strides, scratch.mutable_data());
  internal::run_conv(ctx, st, *x, weight, st->folded_weight, st->folded_bias, stride, padding,
                     dilation, groups, view, nullptr, scale);
  if (ctx.failure_state() != Error::Ok) return;
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, view.sizes()));
  std::memmove(out.mutable_data(), view.const_data(), view.nbytes());
}

}  // namespace etr
