// etr::conv_avg_pool.fused: a 1x1 convolution whose output only feeds a
// 2x2, stride-2, unpadded average pooling (a DenseNet's transition layer),
// run as the pooling first and the convolution over the pooled map. Both
// are linear per pixel / per channel, so they commute: each pooled output
// (W x00 + W x01 + W x10 + W x11) / 4 + b = W ((x00 + x01 + x10 + x11) / 4) + b,
// and the convolution does a quarter of the work. The results differ from
// the two calls by rounding only. The pooled input goes into the scratch
// (the convolution's own output tensor, apart from the input and at least
// as large as the pooled input where prepare accepts the call).
#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/pool_avg.h"
#include "kernels/optimized/conv_internal.h"
#include "kernels/optimized/convolution.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/pool.h"

namespace etr {

using internal::ConvState;

namespace {

// The pooling window is 2x2 at stride 2 without padding and ceil_mode off,
// with no divisor override: every window lies inside the input and is
// divided by 4.
bool plain_2x2_window(IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, const std::optional<int64_t>& divisor_override) {
  PoolGeom pg;
  const int64_t one[1] = {1};
  return !ceil_mode && !divisor_override.has_value() &&
         read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &pg) && pg.kh == 2 &&
         pg.kw == 2 && pg.sh == 2 && pg.sw == 2 && pg.ph == 0 && pg.pw == 0;
}

// The convolution is 1x1 at stride 1 without padding, groups 1, on a 4-D
// input at least 2x2 (so the pooled map is not empty).
bool plain_pointwise(const Tensor& input, const Tensor& weight, IntArrayRef stride,
                     IntArrayRef padding, int64_t groups) {
  if (input.dim() != 4 || weight.dim() != 4 || weight.size(2) != 1 || weight.size(3) != 1 ||
      groups != 1 || input.size(2) < 2 || input.size(3) < 2) {
    return false;
  }
  return internal::unit_stride_no_padding(stride, padding);
}

// Bytes of the pooled input [N, C_in, H / 2, W / 2] (the sizes are checked
// tensor sizes, so the product does not overflow).
size_t pooled_bytes(const Tensor& input) {
  return static_cast<size_t>(input.size(0)) * static_cast<size_t>(input.size(1)) *
         static_cast<size_t>(input.size(2) / 2) * static_cast<size_t>(input.size(3) / 2) *
         sizeof(float);
}

// One pooled plane: out[y][x] is the mean of in's 2x2 block at (2y, 2x),
// summed in double in the order of opt::avg_pool_2x2_row_avx2.
void pool_plane_2x2(const float* in, int64_t iw, int64_t oh, int64_t ow, bool avx2, float* out) {
  for (int64_t y = 0; y < oh; ++y) {
    const float* r0 = in + 2 * y * iw;
    const float* r1 = r0 + iw;
    float* row = out + y * ow;
    int64_t x = avx2 ? opt::avg_pool_2x2_row_avx2(r0, r1, ow, 4.0, row) : 0;
    for (; x < ow; ++x) {
      double sum = static_cast<double>(r0[2 * x]);
      sum += static_cast<double>(r0[2 * x + 1]);
      sum += static_cast<double>(r1[2 * x]);
      sum += static_cast<double>(r1[2 * x + 1]);
      row[x] = static_cast<float>(sum / 4.0);
    }
  }
}

}  // namespace

Error opt_conv_avg_pool_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor& weight, const Tensor* bias, IntArrayRef stride,
                                IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                IntArrayRef output_padding, int64_t groups, IntArrayRef kernel_size,
                                IntArrayRef pool_stride, IntArrayRef pool_padding, bool ceil_mode,
                                bool /*count_include_pad*/, std::optional<int64_t> divisor_override,
                                Tensor& scratch, Tensor& out) {
  internal::ConvGeom g;
  if (!internal::conv_accepts(input, weight, bias, stride, padding, dilation, transposed,
                              output_padding, groups, out, &g) ||
      !plain_pointwise(input, weight, stride, padding, groups) ||
      !plain_2x2_window(kernel_size, pool_stride, pool_padding, ceil_mode, divisor_override) ||
      !ctx.is_constant_arg(1) || (bias != nullptr && !ctx.is_constant_arg(2)) ||
      scratch.dtype() != ScalarType::Float || scratch.capacity_bytes() < pooled_bytes(input)) {
    return Error::NotSupported;  // the calls run apart
  }
  if (bias != nullptr && bias->size(0) != g.c_out) return Error::NotSupported;
  // The convolution runs over the pooled map: its geometry decides the path
  // and the packing.
  g.h = input.size(2) / 2;
  g.w = input.size(3) / 2;
  ConvState* st = internal::make_conv_state(ctx, g, weight.const_data_ptr<float>());
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for the convolution's packed state", ctx.op_name());
  ctx.set_state(st);
  return Error::Ok;
}

void opt_conv_avg_pool_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                           const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef dilation, bool, IntArrayRef, int64_t groups, IntArrayRef,
                           IntArrayRef, IntArrayRef, bool, bool, std::optional<int64_t>,
                           Tensor& scratch, Tensor& out) {
  const char* op = ctx.op_name();
  const ConvState* st = ctx.state<ConvState>();
  ETR_KERNEL_CHECK(ctx, st != nullptr, Error::Internal, "%s: reached run without its state", op);
  ETR_KERNEL_CHECK(ctx, plain_pointwise(input, weight, stride, padding, groups),
                   Error::InvalidArgument,
                   "%s: input %s and weight %s are not a 1x1 convolution over a 4-D input of at "
                   "least 2x2",
                   op, ShapeText(input).c_str(), ShapeText(weight).c_str());
  ETR_KERNEL_CHECK(ctx, bias == nullptr || bias->size(0) == weight.size(0), Error::InvalidArgument,
                   "%s: bias %s must have %lld elements", op, ShapeText(*bias).c_str(),
                   static_cast<long long>(weight.size(0)));
  const size_t bytes = pooled_bytes(input);
  ETR_KERNEL_CHECK(ctx, scratch.capacity_bytes() >= bytes, Error::InvalidArgument,
                   "%s: scratch of %zu bytes cannot hold the %zu-byte pooled input %s", op,
                   scratch.capacity_bytes(), bytes, ShapeText(input).c_str());
  const int64_t planes = input.size(0) * input.size(1);
  const int64_t ih = input.size(2), iw = input.size(3), oh = ih / 2, ow = iw / 2;
  // The pooled input, a view of the scratch (apart from the input and out).
  int32_t sizes[4] = {static_cast<int32_t>(input.size(0)), static_cast<int32_t>(input.size(1)),
                      static_cast<int32_t>(oh), static_cast<int32_t>(ow)};
  uint8_t order[4] = {0, 1, 2, 3};
  int64_t strides[4] = {};
  Tensor pooled(ScalarType::Float, size_t{4}, sizes, order, strides, scratch.mutable_data());
  const float* in = input.const_data_ptr<float>();
  float* p = pooled.data_ptr<float>();
  const bool avx2 = st->avx2;
  // About 16K input values per chunk.
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 16384 / (ih * iw)));
  parallel_for(ctx.thread_pool(), static_cast<size_t>(planes), grain,
               [&](size_t begin, size_t end) {
                 for (size_t i = begin; i < end; ++i) {
                   const int64_t pi = static_cast<int64_t>(i);
                   pool_plane_2x2(in + pi * ih * iw, iw, oh, ow, avx2, p + pi * oh * ow);
                 }
               });
  // The input is read: `out` may lie over it (never over the scratch).
  internal::run_conv(ctx, st, pooled, weight, weight.const_data_ptr<float>(),
                     bias == nullptr ? nullptr : bias->const_data_ptr<float>(), stride, padding,
                     dilation, groups, out);
}

}  // namespace etr
