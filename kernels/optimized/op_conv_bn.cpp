// The fused convolution -> batch norm (-> relu / hardtanh / SiLU / the
// exporter's decomposed hardswish) kernels (etr::conv_bn*.fused), and the
// squeeze-excite scale -> convolution -> batch norm one
// (etr::mul_conv_bn.fused), formed at method load by the rules of
// fusion_rules.cpp: prepare folds the batch norm into constant weights and
// bias and records the activation; run is the convolution of
// op_convolution.cpp with them (conv_internal.h). Also the banded
// expansion -> depthwise pairs of inverted-residual blocks
// (etr::conv_bn_{hardtanh,relu}_dw.fused, at the end of the file).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "kernels/cpu_math/conv_depthwise.h"
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/scratch_slots.h"
#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/conv_internal.h"
#include "kernels/optimized/convolution.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"

namespace etr {

using internal::ConvState;

namespace {

// The batch norm folded into weight [c][k] and bias, into method memory:
// per output channel c, s = gamma[c] / sqrt(var[c] + eps), W'[c] = W[c] * s
// and b'[c] = (b[c] - mean[c]) * s + beta[c] (in double, rounded once).
// False when memory is short.
bool fold_into(KernelPrepareContext& ctx, const Tensor& weight, const Tensor* bias,
               const Tensor* gamma, const Tensor* beta, const Tensor& mean, const Tensor& var,
               double eps, int64_t c, float** w_out, float** b_out) {
  const size_t k = static_cast<size_t>(weight.numel() / c);
  auto* w2 = static_cast<float*>(ctx.allocate(static_cast<size_t>(weight.numel()) * 4, 64));
  auto* b2 = static_cast<float*>(ctx.allocate(static_cast<size_t>(c) * 4, 64));
  if (w2 == nullptr || b2 == nullptr) return false;
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
  *w_out = w2;
  *b_out = b2;
  return true;
}

// A convolution with its batch norm folded into constant weights and bias
// (fold_into), then the activation.
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
  float* w2 = nullptr;
  float* b2 = nullptr;
  ETR_CHECK_OR_FAIL(fold_into(ctx, weight, bias, gamma, beta, mean, var, eps, c, &w2, &b2),
                    Error::MemoryAllocationFailed,
                    "%s: out of method memory for the folded weights (%zu bytes)", ctx.op_name(),
                    static_cast<size_t>(weight.numel() + c) * 4);
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

// Temp memory a pointwise product over a copy of its input must leave free
// for its own scratch: the GEMM packs at most a 512 x 256 panel of the input
// per worker (512 KiB; the weights come packed at prepare), for up to 2
// workers, with room to spare.
constexpr size_t kCopyMargin = size_t{2} << 20;

// Computes into `out`, or, when the memory plan put `out` over the input or
// weights (dead once the convolution has run), into the convolution's own
// output slot `conv_out` (the loader checked it is apart from them) and
// moves the result (a pointwise expansion instead reads a copy of its
// smaller input); an `out` exactly over the input is written in place where
// the kernel allows it (internal::conv_in_place_ok).
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
  if (!direct && !share_memory(out, weight) && input.nbytes() < out.nbytes() && weight.dim() == 4 &&
      weight.size(2) == 1 && weight.size(3) == 1 && groups == 1) {
    // A pointwise expansion whose output the plan put over its (smaller)
    // input: a copy of the input in temp memory lets it write out directly,
    // copying fewer bytes than moving the output would. Only with room left
    // for the product's own scratch (kCopyMargin), else the move below.
    const MemoryAllocator* temp = ctx.temp_allocator();
    const size_t left = temp == nullptr ? 0 : temp->capacity() - temp->used();
    if (left >= input.nbytes() + 64 && left - input.nbytes() - 64 >= kCopyMargin) {
      void* copy = ctx.allocate_temp(input.nbytes(), 64);
      if (copy != nullptr) {
        std::memcpy(copy, input.const_data(), input.nbytes());
        Tensor view = input;
        view.set_data(copy, input.nbytes());
        internal::run_conv(ctx, st, view, weight, st->folded_weight, st->folded_bias, stride,
                           padding, dilation, groups, out, post);
        return;
      }
    }
  }
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

// ---- etr::bn_relu_conv_bn_relu.fused: a batch norm -> ReLU (a DenseNet's
// pre-activation) whose output only feeds a pointwise conv -> batch norm ->
// relu. The first batch norm becomes a scale and shift per input channel,
// applied with the clamp at 0 while the GEMM packs the input, so its
// output never goes to memory.

namespace {

// A 1x1 convolution at stride 1 without padding, groups 1, over a batch-1
// 4-D input: the GEMM path, which packs its input.
bool pointwise_single(const Tensor& x, const Tensor& weight, IntArrayRef stride,
                      IntArrayRef padding, int64_t groups) {
  if (x.dim() != 4 || x.size(0) != 1 || weight.dim() != 4 || weight.size(2) != 1 ||
      weight.size(3) != 1 || groups != 1 || x.size(2) * x.size(3) <= 1) {
    return false;
  }
  return internal::unit_stride_no_padding(stride, padding);
}

}  // namespace

Error opt_bn_relu_conv_bn_relu_prepare(
    KernelPrepareContext& ctx, const Tensor& x, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double /*momentum1*/, double eps1,
    const Tensor& weight, const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    const Tensor* gamma, const Tensor* beta, const Tensor& mean, const Tensor& var,
    double /*momentum*/, double eps, Tensor& scratch, Tensor& out) {
  // Where each channel's pixels are whole 64-byte lines (16 floats), the
  // GEMM reads the normalized input in place, which measured faster than
  // packing it with the batch norm applied (DenseNet-121's 56x56 and 28x28
  // stages: no gain and 2% slower; its 14x14 and 7x7 ones, which the GEMM
  // packs anyway, gain): the steps then run apart.
  if (!pointwise_single(x, weight, stride, padding, groups) || !(eps1 >= 0.0) ||
      (x.size(2) * x.size(3)) % 16 == 0) {
    return Error::NotSupported;
  }
  // The first batch norm's tensors (arguments 1 to 4): constant Float
  // vectors of x's channels.
  const int64_t c_in = x.size(1);
  const Tensor* bn1[4] = {gamma1, beta1, &mean1, &var1};
  for (size_t i = 0; i < 4; ++i) {
    const Tensor* t = bn1[i];
    if (t == nullptr) continue;
    if (!ctx.is_constant_arg(1 + i) || t->dtype() != ScalarType::Float || t->dim() != 1 ||
        t->size(0) != c_in || !is_default_layout(*t)) {
      return Error::NotSupported;
    }
  }
  // The scratch (the first batch norm's output, apart from x) holds the
  // result when `out` lies over x.
  const size_t out_bytes = static_cast<size_t>(weight.size(0)) *
                           static_cast<size_t>(x.size(2) * x.size(3)) * sizeof(float);
  if (scratch.dtype() != ScalarType::Float || scratch.capacity_bytes() < out_bytes) {
    return Error::NotSupported;
  }
  ETR_RETURN_IF_ERROR(prepare_fused(ctx, x, weight, bias, stride, padding, dilation, transposed,
                                    output_padding, groups, gamma, beta, mean, var, eps, 0.0f, kInf,
                                    false, out, out, 6));
  auto* st = static_cast<ConvState*>(ctx.state());
  // The input shift needs the packed weights (the GEMM then packs the
  // input itself, whichever product runs).
  if (st == nullptr || st->packed == nullptr || st->winograd != nullptr ||
      st->grouped_packed != nullptr) {
    return Error::NotSupported;
  }
  auto* scale = static_cast<float*>(ctx.allocate(static_cast<size_t>(c_in) * 4, 64));
  auto* shift = static_cast<float*>(ctx.allocate(static_cast<size_t>(c_in) * 4, 64));
  ETR_CHECK_OR_FAIL(scale != nullptr && shift != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the input batch norm (%zu bytes)", ctx.op_name(),
                    static_cast<size_t>(c_in) * 8);
  // The optimized batch norm's arithmetic: in double, rounded to float once.
  for (int64_t c = 0; c < c_in; ++c) {
    const double invstd =
        1.0 / std::sqrt(static_cast<double>(var1.const_data_ptr<float>()[c]) + eps1);
    const double g = gamma1 == nullptr ? 1.0 : gamma1->const_data_ptr<float>()[c];
    const double b = beta1 == nullptr ? 0.0 : beta1->const_data_ptr<float>()[c];
    const double s = g * invstd;
    scale[c] = static_cast<float>(s);
    shift[c] = static_cast<float>(b - mean1.const_data_ptr<float>()[c] * s);
  }
  st->in_scale = scale;
  st->in_shift = shift;
  return Error::Ok;
}

void opt_bn_relu_conv_bn_relu_out(KernelContext& ctx, const Tensor& x, const Tensor*, const Tensor*,
                                  const Tensor&, const Tensor&, double, double,
                                  const Tensor& weight, const Tensor*, IntArrayRef stride,
                                  IntArrayRef padding, IntArrayRef dilation, bool, IntArrayRef,
                                  int64_t groups, const Tensor*, const Tensor*, const Tensor&,
                                  const Tensor&, double, double, Tensor& scratch, Tensor& out) {
  const char* op = ctx.op_name();
  const ConvState* st = ctx.state<ConvState>();
  ETR_KERNEL_CHECK(ctx, st != nullptr && st->folded_weight != nullptr && st->in_scale != nullptr,
                   Error::Internal, "%s: fused convolution reached run without its prepared state",
                   op);
  ETR_KERNEL_CHECK(ctx,
                   pointwise_single(x, weight, stride, padding, groups) &&
                       x.size(1) == weight.size(1) && weight.size(0) == st->packed_c_out,
                   Error::InvalidArgument,
                   "%s: input %s and weight %s are not the pointwise convolution prepared", op,
                   ShapeText(x).c_str(), ShapeText(weight).c_str());
  if (!share_memory(out, x) && !share_memory(out, weight)) {
    internal::run_conv(ctx, st, x, weight, st->folded_weight, st->folded_bias, stride, padding,
                       dilation, groups, out, nullptr, st->in_scale, st->in_shift, true);
    return;
  }
  // `out` lies over x (dead once the convolution has run): compute into a
  // view of the scratch with the output's sizes, then move it.
  int32_t sizes[4] = {1, static_cast<int32_t>(weight.size(0)), static_cast<int32_t>(x.size(2)),
                      static_cast<int32_t>(x.size(3))};
  uint8_t order[4] = {0, 1, 2, 3};
  int64_t strides[4] = {};
  const size_t bytes = static_cast<size_t>(sizes[1]) * static_cast<size_t>(sizes[2]) *
                       static_cast<size_t>(sizes[3]) * sizeof(float);
  ETR_KERNEL_CHECK(ctx, scratch.capacity_bytes() >= bytes, Error::Internal,
                   "%s: scratch of %zu bytes cannot hold the %zu-byte output", op,
                   scratch.capacity_bytes(), bytes);
  Tensor view(ScalarType::Float, size_t{4}, sizes, order, strides, scratch.mutable_data());
  internal::run_conv(ctx, st, x, weight, st->folded_weight, st->folded_bias, stride, padding,
                     dilation, groups, view, nullptr, st->in_scale, st->in_shift, true);
  if (ctx.failure_state() != Error::Ok) return;
  ETR_KERNEL_TRY(ctx, resize_output(op, out, view.sizes()));
  std::memmove(out.mutable_data(), view.const_data(), view.nbytes());
}

// ---- etr::conv_bn_hardtanh_dw.fused: the expansion -> depthwise pair of an
// inverted-residual block, run over bands of output rows.

namespace {

// Bytes the expanded band of one thread may take: with the depthwise's
// padded copy and the input rows, it stays in a core's L2.
constexpr size_t kBandTargetBytes = size_t{256} << 10;
// Expanded tensors from this size run banded (prepare_band).
constexpr size_t kBandMinExpandedBytes = size_t{1} << 20;

struct BandState {
  int64_t c_in = 0, c_exp = 0, h = 0, w = 0;
  opt::DepthwiseGeom dg;
  opt::PackedMatrix expand;  // the folded expansion weights [c_exp, c_in], packed as A
  const float* expand_bias = nullptr;
  float lo = 0.0f, hi = 0.0f;  // the expansion's clamp, then SiLU when set
  bool silu = false;
  const float* dw_weight = nullptr;  // folded, depthwise_c8_pack_weights' order
  const float* dw_bias = nullptr;
  opt::DepthwiseEpilogue dw_epilogue;
  int64_t band = 0;     // output rows per band
  int64_t in_rows = 0;  // input rows a band reads (the expanded band's height)
};

// Per thread: the expanded band [c_exp][in_rows * w], the depthwise's padded
// copy, then the GEMM's scratch.
struct BandSlot {
  size_t exp_floats = 0, pad_floats = 0, gemm_bytes = 0, bytes = 0;
};

BandSlot band_slot(const BandState& st) {
  BandSlot s;
  s.exp_floats = static_cast<size_t>(st.c_exp * st.in_rows * st.w);
  s.exp_floats = (s.exp_floats + 15) & ~size_t{15};
  s.pad_floats = (opt::depthwise_c8_band_floats(st.dg, st.band) + 15) & ~size_t{15};
  opt::GemmArgs a;
  a.m = st.c_exp;
  a.k = st.c_in;
  a.n = st.in_rows * st.w;
  a.packed_a = &st.expand;
  a.b = opt::MatrixView{nullptr, st.h * st.w, 1};
  a.ldc = a.n;
  s.gemm_bytes = (opt::gemm_scratch_bytes(a, 1) + 127) & ~size_t{63};
  s.bytes = (s.exp_floats + s.pad_floats) * sizeof(float) + s.gemm_bytes;
  return s;
}

// Output rows [ya, yb) of the block, in bands, on the calling thread: per
// band the expansion (with its clamp) of the input rows the band reads that
// the slot does not hold yet (the rows it shares with the previous band are
// moved to the front), then the depthwise of the band from them.
Error run_band_rows(const BandState& st, const float* x, float* out, int64_t ya, int64_t yb,
                    float* slot, const BandSlot& sz) {
  const opt::DepthwiseGeom& dg = st.dg;
  float* e = slot;
  float* pad = slot + sz.exp_floats;
  void* gemm_mem = pad + sz.pad_floats;
  const int64_t ld = st.in_rows * st.w;  // floats per channel of the expanded band
  std::memset(pad, 0, sz.pad_floats * sizeof(float));
  int64_t e0 = 0, e1 = 0;  // image rows the slot holds, [e0, e1)
  for (int64_t y0 = ya; y0 < yb; y0 += st.band) {
    const int64_t rows = std::min(st.band, yb - y0);
    const int64_t r0 = std::max<int64_t>(0, y0 * dg.sh - dg.ph);
    const int64_t r1 = std::min(dg.h, (y0 + rows - 1) * dg.sh - dg.ph + dg.kh);
    int64_t have = 0;  // rows kept from the previous band
    if (r0 >= e0 && r0 < e1) {
      have = e1 - r0;
      if (r0 > e0) {
        for (int64_t c = 0; c < st.c_exp; ++c) {
          std::memmove(e + c * ld, e + c * ld + (r0 - e0) * st.w,
                       static_cast<size_t>(have * st.w) * sizeof(float));
        }
      }
    }
    if (r0 + have < r1) {
      opt::GemmArgs a;
      a.m = st.c_exp;
      a.k = st.c_in;
      a.n = (r1 - r0 - have) * st.w;
      a.packed_a = &st.expand;
      a.b = opt::MatrixView{x + (r0 + have) * st.w, st.h * st.w, 1};
      a.c = e + have * st.w;
      a.ldc = ld;
      a.epilogue.row_bias = st.expand_bias;
      a.epilogue.lo = st.lo;
      a.epilogue.hi = st.hi;
      a.epilogue.silu = st.silu;
      MemoryAllocator scratch(gemm_mem, sz.gemm_bytes);
      const Error err = opt::gemm(a, &scratch, nullptr);
      if (err != Error::Ok) return err;
    }
    e0 = r0;
    e1 = r1;
    opt::depthwise_c8_band_avx2(dg, e, ld, e0, y0, rows, st.dw_weight, st.dw_bias, st.dw_epilogue,
                                out, pad);
  }
  return Error::Ok;
}

}  // namespace

namespace {

// The activations of the two convolutions of a banded block: a clamp, then
// SiLU when set.
struct BandActs {
  float lo1, hi1;
  bool silu1;
  float lo2, hi2;
  bool silu2;
};

// The prepare shared by the etr::conv_bn_*_dw.fused kernels: `second` is
// the argument index of the depthwise's weight (its bias, batch norm
// weight, bias, mean and var follow at +1, +8, +9, +10, +11).
Error prepare_band(KernelPrepareContext& ctx, const Tensor& input, const Tensor& w1,
                   const Tensor* b1, IntArrayRef stride1, IntArrayRef padding1,
                   IntArrayRef dilation1, bool transposed1, IntArrayRef output_padding1,
                   int64_t groups1, const Tensor* gamma1, const Tensor* beta1, const Tensor& mean1,
                   const Tensor& var1, double eps1, const Tensor& w2, const Tensor* b2,
                   IntArrayRef stride2, IntArrayRef padding2, IntArrayRef dilation2,
                   bool transposed2, IntArrayRef output_padding2, int64_t groups2,
                   const Tensor* gamma2, const Tensor* beta2, const Tensor& mean2,
                   const Tensor& var2, double eps2, const BandActs& acts, size_t second,
                   const Tensor& scratch, const Tensor& out) {
  if (!opt::cpu_features().avx2_fma) return Error::NotSupported;
  // The expansion: pointwise, groups 1, batch 1, into `scratch` (its own output).
  internal::ConvGeom g1, g2;
  if (!internal::conv_accepts(input, w1, b1, stride1, padding1, dilation1, transposed1,
                              output_padding1, groups1, scratch, &g1) ||
      g1.batch != 1 || g1.kh != 1 || g1.kw != 1 || g1.sh != 1 || g1.sw != 1 || g1.ph != 0 ||
      g1.pw != 0 || g1.groups != 1 || g1.dh != 1 || g1.dw != 1 || scratch.dim() != 4 ||
      scratch.size(2) != g1.h || scratch.size(3) != g1.w || scratch.size(1) != g1.c_out) {
    return Error::NotSupported;
  }
  // The depthwise over the expansion (scratch has its input's shape).
  if (!internal::conv_accepts(scratch, w2, b2, stride2, padding2, dilation2, transposed2,
                              output_padding2, groups2, out, &g2) ||
      g2.groups != g2.c_in || g2.c_out != g2.c_in || g2.c_in != g1.c_out || g2.sh < 1 ||
      g2.sw < 1) {
    return Error::NotSupported;
  }
  // The depthwise's output extent, which `out` must have.
  g2.oh = (g2.h + 2 * g2.ph - g2.dh * (g2.kh - 1) - 1) / g2.sh + 1;
  g2.ow = (g2.w + 2 * g2.pw - g2.dw * (g2.kw - 1) - 1) / g2.sw + 1;
  if (out.size(0) != 1 || out.size(1) != g2.c_out || out.size(2) != g2.oh || out.size(3) != g2.ow) {
    return Error::NotSupported;
  }
  opt::DepthwiseGeom dg;
  dg.batch = 1;
  dg.channels = g2.c_in;
  dg.h = g2.h;
  dg.w = g2.w;
  dg.oh = g2.oh;
  dg.ow = g2.ow;
  dg.kh = g2.kh;
  dg.kw = g2.kw;
  dg.sh = g2.sh;
  dg.sw = g2.sw;
  dg.ph = g2.ph;
  dg.pw = g2.pw;
  dg.dh = g2.dh;
  dg.dw = g2.dw;
  // Where banding pays (measured, CPU time, MobileNetV2 on Zen 4): a
  // stride-2 depthwise over an expanded tensor larger than a core's L2
  // (112x112x96: 0.74x the two fused convolutions; 56x56x144: 0.95x). At
  // stride 1 the band's halo rows, copied twice into the depthwise's
  // interleaved block, cost more than the expanded tensor's trip through L3
  // (1.03-1.05x on 56x56x144); smaller tensors stay in L2 unbanded
  // (1.03-1.14x). Those run as two fused convolutions.
  const int64_t row_bytes = g1.c_out * g1.w * static_cast<int64_t>(sizeof(float));
  if (!opt::depthwise_c8_band_supported(dg) || dg.sh != 2 ||
      row_bytes * g1.h < static_cast<int64_t>(kBandMinExpandedBytes)) {
    return Error::NotSupported;
  }
  if (std::isnan(acts.lo1) || std::isnan(acts.hi1) || std::isnan(acts.lo2) ||
      std::isnan(acts.hi2) || !(eps1 >= 0.0) || !(eps2 >= 0.0)) {
    return Error::NotSupported;
  }
  // Arguments: 1 w1, 2 b1, 9 gamma1, 10 beta1, 11 mean1, 12 var1, and the
  // depthwise's from `second`: constants.
  auto constant = [&](size_t i) { return ctx.is_constant_arg(i); };
  if (!constant(1) || (b1 != nullptr && !constant(2)) || (gamma1 != nullptr && !constant(9)) ||
      (beta1 != nullptr && !constant(10)) || !constant(11) || !constant(12) || !constant(second) ||
      (b2 != nullptr && !constant(second + 1)) || (gamma2 != nullptr && !constant(second + 8)) ||
      (beta2 != nullptr && !constant(second + 9)) || !constant(second + 10) ||
      !constant(second + 11)) {
    return Error::NotSupported;
  }
  for (const Tensor* t : {gamma1, beta1, &mean1, &var1, b1, gamma2, beta2, &mean2, &var2, b2}) {
    if (t != nullptr &&
        (t->dtype() != ScalarType::Float || t->dim() != 1 || t->size(0) != g1.c_out)) {
      return Error::NotSupported;
    }
  }
  // The out-of-place fallback computes into scratch: it must hold the output.
  if (scratch.capacity_bytes() < out.nbytes()) return Error::NotSupported;
  // A band of output rows whose expanded input rows fill about
  // kBandTargetBytes (one row at least).
  int64_t band = 1;
  while (band < dg.oh && (((band + 1) * dg.sh + dg.kh - dg.sh) * row_bytes) <=
                             static_cast<int64_t>(kBandTargetBytes)) {
    ++band;
  }
  BandState* st = ctx.make_state<BandState>();
  float *fw1 = nullptr, *fb1 = nullptr, *fw2 = nullptr, *fb2 = nullptr;
  const size_t packed_bytes = opt::packed_a_bytes(g1.c_out, g1.c_in);
  auto* packed = packed_bytes == 0 ? nullptr : static_cast<float*>(ctx.allocate(packed_bytes, 64));
  auto* wk = static_cast<float*>(
      ctx.allocate(static_cast<size_t>(g2.c_in * g2.kh * g2.kw) * sizeof(float), 64));
  ETR_CHECK_OR_FAIL(
      st != nullptr && packed != nullptr && wk != nullptr &&
          fold_into(ctx, w1, b1, gamma1, beta1, mean1, var1, eps1, g1.c_out, &fw1, &fb1) &&
          fold_into(ctx, w2, b2, gamma2, beta2, mean2, var2, eps2, g2.c_out, &fw2, &fb2),
      Error::MemoryAllocationFailed, "%s: out of method memory for the folded weights",
      ctx.op_name());
  st->c_in = g1.c_in;
  st->c_exp = g1.c_out;
  st->h = g1.h;
  st->w = g1.w;
  st->dg = dg;
  st->expand = opt::pack_a(opt::MatrixView{fw1, g1.c_in, 1}, g1.c_out, g1.c_in, packed);
  st->expand_bias = fb1;
  st->lo = acts.lo1;
  st->hi = acts.hi1;
  st->silu = acts.silu1;
  opt::depthwise_c8_pack_weights(dg, fw2, wk);
  st->dw_weight = wk;
  st->dw_bias = fb2;
  st->dw_epilogue.lo = acts.lo2;
  st->dw_epilogue.hi = acts.hi2;
  st->dw_epilogue.silu = acts.silu2;
  st->band = band;
  st->in_rows = std::min((band - 1) * dg.sh + dg.kh, dg.h);
  ctx.set_state(st);
  return Error::Ok;
}

void run_band(KernelContext& ctx, const Tensor& input, Tensor& scratch, Tensor& out) {
  const BandState* st = ctx.state<BandState>();
  ETR_KERNEL_CHECK(ctx, st != nullptr, Error::Internal,
                   "%s: fused block reached run without its prepared state", ctx.op_name());
  ETR_KERNEL_CHECK(ctx,
                   input.dtype() == ScalarType::Float && input.dim() == 4 && input.size(0) == 1 &&
                       input.size(1) == st->c_in && input.size(2) == st->h &&
                       input.size(3) == st->w,
                   Error::InvalidArgument, "%s: input %s is not the prepared [1, %lld, %lld, %lld]",
                   ctx.op_name(), ShapeText(input).c_str(), static_cast<long long>(st->c_in),
                   static_cast<long long>(st->h), static_cast<long long>(st->w));
  ETR_KERNEL_CHECK(ctx,
                   out.dtype() == ScalarType::Float && out.dim() == 4 && out.size(0) == 1 &&
                       out.size(1) == st->c_exp && out.size(2) == st->dg.oh &&
                       out.size(3) == st->dg.ow && scratch.capacity_bytes() >= out.nbytes(),
                   Error::InvalidArgument,
                   "%s: output %s is not the prepared [1, %lld, %lld, %lld] (or scratch of %zu "
                   "bytes is short)",
                   ctx.op_name(), ShapeText(out).c_str(), static_cast<long long>(st->c_exp),
                   static_cast<long long>(st->dg.oh), static_cast<long long>(st->dg.ow),
                   scratch.capacity_bytes());
  // Bands write the output while later bands still read the input: an
  // output over the input is computed into scratch (apart from the input)
  // and moved.
  const bool direct = !share_memory(out, input);
  float* dst = direct ? static_cast<float*>(out.mutable_data())
                      : static_cast<float*>(scratch.mutable_data());
  const BandSlot sz = band_slot(*st);
  ThreadPool* pool = ctx.thread_pool();
  const int64_t bands = (st->dg.oh + st->band - 1) / st->band;
  size_t threads = pool == nullptr ? 1 : pool->num_threads();
  threads = std::min<size_t>(threads, static_cast<size_t>(bands));
  // One slot per thread, fewer when temp memory is short.
  void* mem = nullptr;
  while (threads >= 1 && mem == nullptr) {
    mem = ctx.allocate_temp(sz.bytes * threads, 64);
    if (mem == nullptr) --threads;
  }
  ETR_KERNEL_CHECK(ctx, mem != nullptr, Error::MemoryAllocationFailed,
                   "%s: band scratch of %zu bytes not available from temp memory", ctx.op_name(),
                   sz.bytes);
  // Each chunk a run of whole bands (contiguous output rows): the rows two
  // bands share are expanded once within a chunk.
  const int64_t per = (bands + static_cast<int64_t>(threads) - 1) / static_cast<int64_t>(threads);
  opt::ScratchSlots slots(threads);
  const float* x = input.const_data_ptr<float>();
  std::atomic<int> failed{0};
  parallel_for(threads > 1 ? pool : nullptr, threads, 1, [&](size_t first, size_t last) {
    bool fresh = false;
    const size_t sl = slots.acquire(&fresh);
    float* slot = reinterpret_cast<float*>(static_cast<uint8_t*>(mem) + sl * sz.bytes);
    for (size_t t = first; t < last; ++t) {
      const int64_t ya = static_cast<int64_t>(t) * per * st->band;
      const int64_t yb = std::min(st->dg.oh, ya + per * st->band);
      if (ya < yb && run_band_rows(*st, x, dst, ya, yb, slot, sz) != Error::Ok) {
        failed.store(1);
      }
    }
    slots.release(sl);
  });
  ETR_KERNEL_CHECK(ctx, failed.load() == 0, Error::Internal, "%s: the banded expansion failed",
                   ctx.op_name());
  if (!direct) std::memmove(out.mutable_data(), dst, out.nbytes());
}

}  // namespace

Error opt_conv_bn_hardtanh_dw_prepare(
    KernelPrepareContext& ctx, const Tensor& input, const Tensor& w1, const Tensor* b1,
    IntArrayRef stride1, IntArrayRef padding1, IntArrayRef dilation1, bool transposed1,
    IntArrayRef output_padding1, int64_t groups1, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double /*momentum1*/, double eps1, Scalar min1,
    Scalar max1, const Tensor& w2, const Tensor* b2, IntArrayRef stride2, IntArrayRef padding2,
    IntArrayRef dilation2, bool transposed2, IntArrayRef output_padding2, int64_t groups2,
    const Tensor* gamma2, const Tensor* beta2, const Tensor& mean2, const Tensor& var2,
    double /*momentum2*/, double eps2, Scalar min2, Scalar max2, Tensor& scratch, Tensor& out) {
  const BandActs acts{scalar_to<float>(min1), scalar_to<float>(max1), false,
                      scalar_to<float>(min2), scalar_to<float>(max2), false};
  return prepare_band(ctx, input, w1, b1, stride1, padding1, dilation1, transposed1,
                      output_padding1, groups1, gamma1, beta1, mean1, var1, eps1, w2, b2, stride2,
                      padding2, dilation2, transposed2, output_padding2, groups2, gamma2, beta2,
                      mean2, var2, eps2, acts, 17, scratch, out);
}

void opt_conv_bn_hardtanh_dw_out(KernelContext& ctx, const Tensor& input, const Tensor&,
                                 const Tensor*, IntArrayRef, IntArrayRef, IntArrayRef, bool,
                                 IntArrayRef, int64_t, const Tensor*, const Tensor*, const Tensor&,
                                 const Tensor&, double, double, Scalar, Scalar, const Tensor&,
                                 const Tensor*, IntArrayRef, IntArrayRef, IntArrayRef, bool,
                                 IntArrayRef, int64_t, const Tensor*, const Tensor*, const Tensor&,
                                 const Tensor&, double, double, Scalar, Scalar, Tensor& scratch,
                                 Tensor& out) {
  run_band(ctx, input, scratch, out);
}

Error opt_conv_bn_relu_dw_prepare(
    KernelPrepareContext& ctx, const Tensor& input, const Tensor& w1, const Tensor* b1,
    IntArrayRef stride1, IntArrayRef padding1, IntArrayRef dilation1, bool transposed1,
    IntArrayRef output_padding1, int64_t groups1, const Tensor* gamma1, const Tensor* beta1,
    const Tensor& mean1, const Tensor& var1, double /*momentum1*/, double eps1, const Tensor& w2,
    const Tensor* b2, IntArrayRef stride2, IntArrayRef padding2, IntArrayRef dilation2,
    bool transposed2, IntArrayRef output_padding2, int64_t groups2, const Tensor* gamma2,
    const Tensor* beta2, const Tensor& mean2, const Tensor& var2, double /*momentum2*/, double eps2,
    Tensor& scratch, Tensor& out) {
  const BandActs acts{0.0f, kInf, false, 0.0f, kInf, false};
  return prepare_band(ctx, input, w1, b1, stride1, padding1, dilation1, transposed1,
                      output_padding1, groups1, gamma1, beta1, mean1, var1, eps1, w2, b2, stride2,
                      padding2, dilation2, transposed2, output_padding2, groups2, gamma2, beta2,
                      mean2, var2, eps2, acts, 15, scratch, out);
}

void opt_conv_bn_relu_dw_out(KernelContext& ctx, const Tensor& input, const Tensor&, const Tensor*,
                             IntArrayRef, IntArrayRef, IntArrayRef, bool, IntArrayRef, int64_t,
                             const Tensor*, const Tensor*, const Tensor&, const Tensor&, double,
                             double, const Tensor&, const Tensor*, IntArrayRef, IntArrayRef,
                             IntArrayRef, bool, IntArrayRef, int64_t, const Tensor*, const Tensor*,
                             const Tensor&, const Tensor&, double, double, Tensor& scratch,
                             Tensor& out) {
  run_band(ctx, input, scratch, out);
}

}  // namespace etr
