// 2-D resampling of an [N, C, H, W] input: aten::upsample_nearest2d.vec_out,
// aten::upsample_bilinear2d.vec_out and aten::_upsample_bilinear2d_aa.out.
// The output size is given, or floor(in * scale_factor); a given scale
// factor s also sets the sampling step to 1 / s (PyTorch's rule), else the
// step is in / out (align_corners: (in - 1) / (out - 1)). Nearest reads
// floor(o * step) (float arithmetic as in PyTorch); bilinear blends the two
// neighbours around step * (o + 0.5) - 0.5 (align_corners: step * o);
// antialiased bilinear averages a triangle filter widened by the step when
// downsampling. Nearest: Byte, Float, Double; bilinear: Float, Double (the
// weights are computed in the input's type) and Byte (PyTorch's separable
// fixed-point path, util/resample_u8.h). Any dim order.
#include <cmath>

#include "kernels/portable/resample.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/resample_u8.h"

namespace etr {
namespace {

// The output's spatial sizes and the optional per-dim scale factors.
struct Resize {
  int64_t out_h = 0, out_w = 0;
  std::optional<double> scale_h, scale_w;
};

// Load: a 4-D input and out of its dtype; exactly one of output_size and
// scale_factors, each with two entries.
Error check_resize_args(const char* op, const Tensor& input, std::optional<IntArrayRef> output_size,
                        const EValue& scale_factors, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_rank(op, "input", input, 4));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, input.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 4));
  ETR_CHECK_OR_FAIL(scale_factors.is_none() || scale_factors.is_double_list(),
                    Error::InvalidArgument, "%s: scale_factors must be a float list or None", op);
  const bool has_scales = scale_factors.is_double_list();
  ETR_CHECK_OR_FAIL(output_size.has_value() != has_scales, Error::InvalidArgument,
                    "%s: exactly one of output_size and scale_factors must be given", op);
  ETR_CHECK_OR_FAIL(!output_size.has_value() || output_size->size() == 2, Error::InvalidArgument,
                    "%s: output_size must have 2 values, got %zu", op,
                    output_size.has_value() ? output_size->size() : size_t{0});
  ETR_CHECK_OR_FAIL(!has_scales || scale_factors.to_double_list().size() == 2,
                    Error::InvalidArgument, "%s: scale_factors must have 2 values", op);
  return Error::Ok;
}

// floor(in * scale) for a positive finite scale, or an error.
Error scaled_size(const char* op, int64_t in, double scale, int64_t* out) {
  ETR_CHECK_OR_FAIL(std::isfinite(scale) && scale > 0.0, Error::InvalidArgument,
                    "%s: scale factor %g must be positive and finite", op, scale);
  const double v = std::floor(static_cast<double>(in) * scale);
  ETR_CHECK_OR_FAIL(v < static_cast<double>(INT32_MAX), Error::InvalidArgument,
                    "%s: scale factor %g gives too large an output", op, scale);
  *out = static_cast<int64_t>(v);
  return Error::Ok;
}

// Run: the output size, checked non-empty, and out resized.
Error resolve_resize(const char* op, const Tensor& input, std::optional<IntArrayRef> output_size,
                     std::optional<Span<const double>> scales, Tensor& out, Resize* r) {
  if (output_size.has_value()) {
    r->out_h = (*output_size)[0];
    r->out_w = (*output_size)[1];
  } else {
    ETR_RETURN_IF_ERROR(scaled_size(op, input.size(2), (*scales)[0], &r->out_h));
    ETR_RETURN_IF_ERROR(scaled_size(op, input.size(3), (*scales)[1], &r->out_w));
    r->scale_h = (*scales)[0];
    r->scale_w = (*scales)[1];
  }
  ETR_CHECK_OR_FAIL(
      input.size(1) > 0 && input.size(2) > 0 && input.size(3) > 0 && r->out_h > 0 && r->out_w > 0,
      Error::InvalidArgument, "%s: input %s and output size [%lld,%lld] must be non-empty", op,
      ShapeText(input).c_str(), static_cast<long long>(r->out_h), static_cast<long long>(r->out_w));
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, input.dtype(), {&out}));
  const int64_t sizes[4] = {input.size(0), input.size(1), r->out_h, r->out_w};
  return resize_output(op, out, Span<const int64_t>(sizes, 4));
}

std::optional<Span<const double>> scale_list(const EValue& v) {
  if (v.is_double_list()) return v.to_double_list();
  return std::nullopt;
}

// The sampling step: 1 / scale when a positive scale was given, else in / out.
template <typename T>
T step_of(std::optional<double> scale, int64_t in, int64_t out) {
  if (scale.has_value() && *scale > 0.0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

// The linear step (align_corners: corner pixel centres map to each other).
// A dim whose size does not change is copied, whatever scale was given, as
// PyTorch's separable linear kernels skip it.
template <typename T>
T linear_step(bool align_corners, std::optional<double> scale, int64_t in, int64_t out) {
  if (in == out) return T(1);
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return step_of<T>(scale, in, out);
}

int64_t nearest_index(int64_t o, int64_t in, int64_t out, std::optional<double> scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float step = step_of<float>(scale, in, out);
  const int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(o) * step));
  return i < in - 1 ? i : in - 1;
}

// Calls fn(in_offset, out_offset) for every (n, c) plane.
template <typename Fn>
void for_each_plane(const Tensor& input, const Tensor& out, Fn&& fn) {
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t c = 0; c < input.size(1); ++c) {
      fn(n * input.stride(0) + c * input.stride(1), n * out.stride(0) + c * out.stride(1));
    }
  }
}

template <typename T>
void nearest2d(const Tensor& input, const Resize& r, Tensor& out) {
  const T* x = input.const_data_ptr<T>();
  T* y = out.data_ptr<T>();
  const int64_t in_h = input.size(2), in_w = input.size(3);
  for_each_plane(input, out, [&](int64_t xi, int64_t yo) {
    for (int64_t oh = 0; oh < r.out_h; ++oh) {
      const int64_t ih = nearest_index(oh, in_h, r.out_h, r.scale_h);
      for (int64_t ow = 0; ow < r.out_w; ++ow) {
        const int64_t iw = nearest_index(ow, in_w, r.out_w, r.scale_w);
        y[yo + oh * out.stride(2) + ow * out.stride(3)] =
            x[xi + ih * input.stride(2) + iw * input.stride(3)];
      }
    }
  });
}

// The two source positions and their weights for output position o.
template <typename T>
struct LinearTap {
  int64_t i0 = 0, i1 = 0;
  T w0 = T(1), w1 = T(0);
};

template <typename T>
LinearTap<T> linear_tap(int64_t o, int64_t in, T step, bool align_corners) {
  T src = align_corners ? step * static_cast<T>(o) : step * (static_cast<T>(o) + T(0.5)) - T(0.5);
  if (src < T(0)) src = T(0);
  LinearTap<T> t;
  t.i0 = static_cast<int64_t>(src);
  if (t.i0 > in - 1) t.i0 = in - 1;
  t.i1 = t.i0 < in - 1 ? t.i0 + 1 : t.i0;
  T l = src - static_cast<T>(t.i0);
  l = l < T(0) ? T(0) : (l > T(1) ? T(1) : l);
  t.w1 = l;
  t.w0 = T(1) - l;
  return t;
}

template <typename T>
void bilinear2d(const Tensor& input, const Resize& r, bool align_corners, Tensor& out) {
  const T* x = input.const_data_ptr<T>();
  T* y = out.data_ptr<T>();
  const int64_t in_h = input.size(2), in_w = input.size(3);
  const int64_t sh = input.stride(2), sw = input.stride(3);
  const T step_h = linear_step<T>(align_corners, r.scale_h, in_h, r.out_h);
  const T step_w = linear_step<T>(align_corners, r.scale_w, in_w, r.out_w);
  for_each_plane(input, out, [&](int64_t xi, int64_t yo) {
    for (int64_t oh = 0; oh < r.out_h; ++oh) {
      const LinearTap<T> th = linear_tap(oh, in_h, step_h, align_corners);
      const T* r0 = x + xi + th.i0 * sh;
      const T* r1 = x + xi + th.i1 * sh;
      for (int64_t ow = 0; ow < r.out_w; ++ow) {
        const LinearTap<T> tw = linear_tap(ow, in_w, step_w, align_corners);
        y[yo + oh * out.stride(2) + ow * out.stride(3)] =
            th.w0 * (tw.w0 * r0[tw.i0 * sw] + tw.w1 * r0[tw.i1 * sw]) +
            th.w1 * (tw.w0 * r1[tw.i0 * sw] + tw.w1 * r1[tw.i1 * sw]);
      }
    }
  });
}

}  // namespace

Error upsample_nearest2d_vec_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                     std::optional<IntArrayRef> output_size, EValue& scale_factors,
                                     Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      check_dtype_in(op, "input", input.dtype(),
                     DtypeSet::of(ScalarType::Byte, ScalarType::Float, ScalarType::Double)));
  return check_resize_args(op, input, output_size, scale_factors, out);
}

void upsample_nearest2d_vec_out(KernelContext& ctx, const Tensor& input,
                                std::optional<IntArrayRef> output_size, EValue& scale_factors,
                                Tensor& out) {
  const char* op = ctx.op_name();
  Resize r;
  ETR_KERNEL_TRY(ctx, check_resize_args(op, input, output_size, scale_factors, out));
  ETR_KERNEL_TRY(ctx, resolve_resize(op, input, output_size, scale_list(scale_factors), out, &r));
  bool known = true;
  if (input.dtype() == ScalarType::Byte) {
    nearest2d<uint8_t>(input, r, out);
  } else {
    known = dispatch_floating(
        input.dtype(), [&](auto tag) { nearest2d<typename decltype(tag)::type>(input, r, out); });
  }
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

Error upsample_bilinear2d_vec_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                      std::optional<IntArrayRef> output_size,
                                      bool /*align_corners*/, EValue& scale_factors, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      check_dtype_in(op, "input", input.dtype(),
                     DtypeSet::of(ScalarType::Byte, ScalarType::Float, ScalarType::Double)));
  return check_resize_args(op, input, output_size, scale_factors, out);
}

void upsample_bilinear2d_vec_out(KernelContext& ctx, const Tensor& input,
                                 std::optional<IntArrayRef> output_size, bool align_corners,
                                 EValue& scale_factors, Tensor& out) {
  const char* op = ctx.op_name();
  Resize r;
  ETR_KERNEL_TRY(ctx, check_resize_args(op, input, output_size, scale_factors, out));
  ETR_KERNEL_TRY(ctx, resolve_resize(op, input, output_size, scale_list(scale_factors), out, &r));
  if (input.dtype() == ScalarType::Byte) {
    ETR_KERNEL_TRY(ctx, resample_bilinear_u8(ctx, op, input, align_corners, r.scale_h, r.scale_w,
                                             /*antialias=*/false, out));
    return;
  }
  const bool known = dispatch_floating(input.dtype(), [&](auto tag) {
    bilinear2d<typename decltype(tag)::type>(input, r, align_corners, out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

}  // namespace etr
