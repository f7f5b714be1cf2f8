// aten::_upsample_bilinear2d_aa.out: antialiased bilinear resize of an
// [N, C, H, W] input. Along each dim, output o averages the inputs around
// centre = step * (o + 0.5) with a triangle filter of half-width
// max(step, 1), weights normalized to sum 1; step = 1 / scale when a scale
// is given, else in / out (align_corners: (in - 1) / (out - 1)). The
// per-dim taps live in temp memory. Float and double, and Byte through
// PyTorch's separable fixed-point path (util/resample_u8.h); any dim order.
#include <cmath>

#include "kernels/portable/resample.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/resample_u8.h"

namespace etr {
namespace {

// The taps of one dim: output o reads `count[o]` inputs from `first[o]` with
// weights w[o * width ...].
template <typename T>
struct Taps {
  int64_t width = 0;
  int64_t* first = nullptr;
  int64_t* count = nullptr;
  T* w = nullptr;
};

template <typename T>
Error make_taps(KernelContext& ctx, const char* op, int64_t in, int64_t out, bool align_corners,
                std::optional<double> scale, Taps<T>* t) {
  T step;
  if (in == out) {
    step = T(1);  // an unchanged dim is copied, whatever scale was given (as PyTorch)
  } else if (align_corners) {
    step = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  } else if (scale.has_value() && *scale > 0.0) {
    step = static_cast<T>(1.0 / *scale);
  } else {
    step = static_cast<T>(in) / static_cast<T>(out);
  }
  ETR_CHECK_OR_FAIL(std::isfinite(static_cast<double>(step)) &&
                        static_cast<double>(step) < static_cast<double>(INT32_MAX),
                    Error::InvalidArgument, "%s: scale gives an unusable sampling step", op);
  const T support = step >= T(1) ? step : T(1);
  const T inv = step >= T(1) ? T(1) / step : T(1);
  const int64_t width = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const bool fits = width <= INT32_MAX / 8 && out <= INT64_MAX / width / 8;
  ETR_CHECK_OR_FAIL(fits, Error::InvalidArgument, "%s: filter of %lld taps for %lld outputs", op,
                    static_cast<long long>(width), static_cast<long long>(out));
  const size_t n = static_cast<size_t>(out);
  t->width = width;
  t->first = static_cast<int64_t*>(ctx.allocate_temp(n * sizeof(int64_t), alignof(int64_t)));
  t->count = static_cast<int64_t*>(ctx.allocate_temp(n * sizeof(int64_t), alignof(int64_t)));
  t->w = static_cast<T*>(ctx.allocate_temp(n * static_cast<size_t>(width) * sizeof(T), alignof(T)));
  ETR_CHECK_OR_FAIL(t->first != nullptr && t->count != nullptr && t->w != nullptr,
                    Error::MemoryAllocationFailed, "%s: no temp memory for %lld x %lld filter taps",
                    op, static_cast<long long>(out), static_cast<long long>(width));
  for (int64_t o = 0; o < out; ++o) {
    const T centre = step * (static_cast<T>(o) + T(0.5));
    int64_t lo = static_cast<int64_t>(centre - support + T(0.5));
    int64_t hi = static_cast<int64_t>(centre + support + T(0.5));
    lo = lo < 0 ? 0 : lo;
    hi = hi > in ? in : hi;
    hi = hi - lo > width ? lo + width : hi;
    T* w = t->w + o * width;
    T total = T(0);
    for (int64_t j = lo; j < hi; ++j) {
      const T d = std::fabs((static_cast<T>(j) - centre + T(0.5)) * inv);
      w[j - lo] = d < T(1) ? T(1) - d : T(0);
      total += w[j - lo];
    }
    for (int64_t j = lo; j < hi && total != T(0); ++j) w[j - lo] /= total;
    t->first[o] = lo;
    t->count[o] = hi > lo ? hi - lo : 0;
  }
  return Error::Ok;
}

template <typename T>
void resample_aa(const Tensor& input, const Taps<T>& th, const Taps<T>& tw, int64_t out_h,
                 int64_t out_w, Tensor& out) {
  const T* x = input.const_data_ptr<T>();
  T* y = out.data_ptr<T>();
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t c = 0; c < input.size(1); ++c) {
      const T* plane = x + n * input.stride(0) + c * input.stride(1);
      T* dst = y + n * out.stride(0) + c * out.stride(1);
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const T* wh = th.w + oh * th.width;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const T* ww = tw.w + ow * tw.width;
          T acc = T(0);
          for (int64_t i = 0; i < th.count[oh]; ++i) {
            const T* row = plane + (th.first[oh] + i) * input.stride(2);
            T racc = T(0);
            for (int64_t j = 0; j < tw.count[ow]; ++j) {
              racc += ww[j] * row[(tw.first[ow] + j) * input.stride(3)];
            }
            acc += wh[i] * racc;
          }
          dst[oh * out.stride(2) + ow * out.stride(3)] = acc;
        }
      }
    }
  }
}

}  // namespace

Error upsample_bilinear2d_aa_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                     IntArrayRef output_size, bool /*align_corners*/,
                                     std::optional<double> /*scales_h*/,
                                     std::optional<double> /*scales_w*/, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      check_dtype_in(op, "input", input.dtype(),
                     DtypeSet::of(ScalarType::Byte, ScalarType::Float, ScalarType::Double)));
  ETR_RETURN_IF_ERROR(check_rank(op, "input", input, 4));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, input.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 4));
  ETR_CHECK_OR_FAIL(output_size.size() == 2, Error::InvalidArgument,
                    "%s: output_size must have 2 values, got %zu", op, output_size.size());
  return Error::Ok;
}

void upsample_bilinear2d_aa_out(KernelContext& ctx, const Tensor& input, IntArrayRef output_size,
                                bool align_corners, std::optional<double> scales_h,
                                std::optional<double> scales_w, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx, output_size.size() == 2 && input.dim() == 4, Error::InvalidArgument,
                   "%s: needs a 4-D input and 2 output sizes", op);
  const int64_t oh = output_size[0], ow = output_size[1];
  ETR_KERNEL_CHECK(ctx,
                   input.size(1) > 0 && input.size(2) > 0 && input.size(3) > 0 && oh > 0 &&
                       ow > 0 && oh <= INT32_MAX && ow <= INT32_MAX,
                   Error::InvalidArgument, "%s: input %s and output size %s must be non-empty", op,
                   ShapeText(input).c_str(), ShapeText(output_size).c_str());
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, input.dtype(), {&out}));
  const int64_t sizes[4] = {input.size(0), input.size(1), oh, ow};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 4)));
  if (input.dtype() == ScalarType::Byte) {
    ETR_KERNEL_TRY(ctx, resample_bilinear_u8(ctx, op, input, align_corners, scales_h, scales_w,
                                             /*antialias=*/true, out));
    return;
  }
  Error err = Error::Ok;
  const bool known = dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Taps<T> th, tw;
    err = make_taps<T>(ctx, op, input.size(2), oh, align_corners, scales_h, &th);
    if (err == Error::Ok)
      err = make_taps<T>(ctx, op, input.size(3), ow, align_corners, scales_w, &tw);
    if (err == Error::Ok) resample_aa<T>(input, th, tw, oh, ow, out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
  ETR_KERNEL_TRY(ctx, err);
}

}  // namespace etr
