// uint8 bilinear resizing in fixed point (see resample_u8.h). The formulas
// follow PyTorch's HelperInterpBase (_compute_indices_min_size_weights,
// _compute_indices_min_size_weights_aa, _compute_index_ranges_int16_weights)
// and the uint8 passes of UpSampleKernel.cpp / UpSampleKernelAVXAntialias.h.
#include "kernels/portable/util/resample_u8.h"

#include <cmath>
#include <cstdint>

#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// PyTorch tries 0..21 fractional bits and settles on 22 when none overflows.
constexpr int kMaxPrecision = 22;

// How one resized dim samples.
struct AxisRule {
  int64_t in = 0, out = 0;
  double step = 0.0;
  bool align_corners = false;
  bool antialias = false;
  double support = 1.0;  // antialias: half-width of the filter, max(step, 1)
  int64_t width = 2;     // the most taps an output reads
};

// The taps of one resized dim: output o reads count[o] inputs from first[o]
// with the weights w[o * width ...], scaled by 2^precision.
struct FixedTaps {
  int64_t width = 0;
  int64_t* first = nullptr;
  int64_t* count = nullptr;
  int16_t* w = nullptr;
  int precision = 0;
};

// PIL's bilinear (triangle) filter.
double triangle(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

Error axis_rule(const char* op, int64_t in, int64_t out, bool align_corners,
                std::optional<double> scale, bool antialias, AxisRule* a) {
  double step;
  if (align_corners) {
    step = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  } else if (scale.has_value() && *scale > 0.0) {
    step = 1.0 / *scale;
  } else {
    step = static_cast<double>(in) / static_cast<double>(out);
  }
  ETR_CHECK_OR_FAIL(std::isfinite(step) && step < static_cast<double>(INT32_MAX),
                    Error::InvalidArgument, "%s: scale gives an unusable sampling step", op);
  a->in = in;
  a->out = out;
  a->step = step;
  a->align_corners = align_corners;
  a->antialias = antialias;
  if (antialias) {
    a->support = step >= 1.0 ? step : 1.0;
    a->width = static_cast<int64_t>(std::ceil(a->support)) * 2 + 1;
    ETR_CHECK_OR_FAIL(a->width <= INT32_MAX / 8, Error::InvalidArgument, "%s: filter of %lld taps",
                      op, static_cast<long long>(a->width));
  }
  return Error::Ok;
}

// Antialias off: output o blends two inputs (one at the last input). The
// source position is floored in float (PyTorch floors with floorf), and
// taps that fall past the last input fold onto it, adding their weights.
void linear_tap(const AxisRule& a, int64_t o, int64_t* first, int64_t* count, double w[2]) {
  const double od = static_cast<double>(o);
  double real = a.align_corners ? a.step * od : a.step * (od + 0.5) - 0.5;
  if (real < 0.0) real = 0.0;
  // real < 2^62 here (step < 2^31, o < 2^31): the float conversion is defined.
  const double fl = std::floor(static_cast<double>(static_cast<float>(real)));
  const int64_t idx = fl >= static_cast<double>(a.in - 1) ? a.in - 1 : static_cast<int64_t>(fl);
  double lambda = real - static_cast<double>(idx);
  lambda = lambda < 0.0 ? 0.0 : (lambda > 1.0 ? 1.0 : lambda);
  const int64_t size = (idx + 2 < a.in ? idx + 2 : a.in) - idx;
  w[0] = w[1] = 0.0;
  int64_t k = 0;
  for (int64_t j = 0; j < 2; ++j) {
    const double v = triangle(static_cast<double>(j) - lambda);
    if (idx + j <= 0) {
      k = 0;
    } else if (idx + j >= a.in - 1) {
      k = size - 1;
    }
    w[k] += v;
    ++k;
  }
  *first = idx;
  *count = size;
}

// Antialias on: the inputs within `support` of the centre step * (o + 0.5),
// weighted by the triangle stretched by the step and normalized to sum 1.
// Calls emit(j, weight) for each of the *count taps from *first.
template <typename Emit>
void aa_tap(const AxisRule& a, int64_t o, int64_t* first, int64_t* count, Emit&& emit) {
  // centre < 2^62 (step < 2^31, o < 2^31): the int64 conversions are defined.
  const double centre = a.step * (static_cast<double>(o) + 0.5);
  const double inv = a.step >= 1.0 ? 1.0 / a.step : 1.0;
  int64_t lo = static_cast<int64_t>(centre - a.support + 0.5);
  lo = lo < 0 ? 0 : lo;
  int64_t hi = static_cast<int64_t>(centre + a.support + 0.5);
  hi = hi < a.in ? hi : a.in;
  int64_t n = hi - lo;
  n = n < 0 ? 0 : (n > a.width ? a.width : n);
  auto raw = [&](int64_t j) {
    return triangle((static_cast<double>(j + lo) - centre + 0.5) * inv);
  };
  double total = 0.0;
  for (int64_t j = 0; j < n; ++j) total += raw(j);
  for (int64_t j = 0; j < n; ++j) emit(j, total != 0.0 ? raw(j) / total : raw(j));
  *first = lo;
  *count = n;
}

// Calls emit(j, weight) for the taps of output o; writes *first and *count.
template <typename Emit>
void for_each_tap(const AxisRule& a, int64_t o, int64_t* first, int64_t* count, Emit&& emit) {
  if (a.antialias) {
    aa_tap(a, o, first, count, emit);
    return;
  }
  double w[2];
  linear_tap(a, o, first, count, w);
  for (int64_t j = 0; j < *count; ++j) emit(j, w[j]);
}

// The fractional bits for a dim whose largest weight is wmax: the first p
// at which round(wmax * 2^(p + 1)) reaches 2^15, so that every weight times
// 2^p rounds into int16.
int precision_for(double wmax) {
  int p = 0;
  for (; p < kMaxPrecision; ++p) {
    if (std::floor(0.5 + wmax * static_cast<double>(1 << (p + 1))) >= 32768.0) break;
  }
  return p;
}

Error make_taps(KernelContext& ctx, const char* op, const AxisRule& a, FixedTaps* t) {
  size_t n_first = 0, n_w = 0, n_weights = 0;
  const bool fits = checked_mul(static_cast<size_t>(a.out), sizeof(int64_t), &n_first) &&
                    checked_mul(static_cast<size_t>(a.out), static_cast<size_t>(a.width), &n_w) &&
                    checked_mul(n_w, sizeof(int16_t), &n_weights);
  ETR_CHECK_OR_FAIL(fits, Error::InvalidArgument, "%s: %lld x %lld filter taps overflow", op,
                    static_cast<long long>(a.out), static_cast<long long>(a.width));
  t->width = a.width;
  t->first = static_cast<int64_t*>(ctx.allocate_temp(n_first, alignof(int64_t)));
  t->count = static_cast<int64_t*>(ctx.allocate_temp(n_first, alignof(int64_t)));
  t->w = static_cast<int16_t*>(ctx.allocate_temp(n_weights, alignof(int16_t)));
  ETR_CHECK_OR_FAIL(t->first != nullptr && t->count != nullptr && t->w != nullptr,
                    Error::MemoryAllocationFailed, "%s: no temp memory for %lld x %lld filter taps",
                    op, static_cast<long long>(a.out), static_cast<long long>(a.width));
  // The precision depends on the dim's largest weight: one pass finds it, a
  // second (the same arithmetic) rounds the weights.
  double wmax = 0.0;
  for (int64_t o = 0; o < a.out; ++o) {
    for_each_tap(a, o, &t->first[o], &t->count[o],
                 [&](int64_t, double v) { wmax = v > wmax ? v : wmax; });
  }
  t->precision = precision_for(wmax);
  ETR_CHECK_OR_FAIL(t->precision > 0, Error::InvalidArgument, "%s: filter weight %g too large", op,
                    wmax);
  const double unit = static_cast<double>(1 << t->precision);
  for (int64_t o = 0; o < a.out; ++o) {
    int16_t* w = t->w + o * a.width;
    for_each_tap(a, o, &t->first[o], &t->count[o], [&](int64_t j, double v) {
      const double s = v * unit;  // |s| < 2^15 by the choice of precision
      w[j] = static_cast<int16_t>(s < 0.0 ? static_cast<int32_t>(s - 0.5)
                                          : static_cast<int32_t>(s + 0.5));
    });
  }
  return Error::Ok;
}

// acc / 2^precision rounded down (acc holds the + 2^(precision-1)), in [0, 255].
uint8_t to_byte(int64_t acc, int precision) {
  const int64_t v = acc >> precision;
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// The width pass at output column ow of the input row starting at `row`
// (elements `sw` apart); the input element itself when the width is kept.
uint8_t width_value(const uint8_t* row, int64_t sw, const FixedTaps* tw, int64_t ow) {
  if (tw == nullptr) return row[ow * sw];
  const int16_t* w = tw->w + ow * tw->width;
  const uint8_t* x = row + tw->first[ow] * sw;
  int64_t acc = int64_t{1} << (tw->precision - 1);
  for (int64_t j = 0; j < tw->count[ow]; ++j) acc += int64_t{w[j]} * x[j * sw];
  return to_byte(acc, tw->precision);
}

// Both passes; th / tw null: that dim is kept. Each height tap reads the
// uint8 result of the width pass on its input row, as PyTorch's buffer does.
void resample(const Tensor& input, const FixedTaps* th, const FixedTaps* tw, Tensor& out) {
  const uint8_t* x = input.const_data_ptr<uint8_t>();
  uint8_t* y = out.data_ptr<uint8_t>();
  const int64_t sh = input.stride(2), sw = input.stride(3);
  const int64_t out_h = out.size(2), out_w = out.size(3);
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t c = 0; c < input.size(1); ++c) {
      const uint8_t* plane = x + n * input.stride(0) + c * input.stride(1);
      uint8_t* dst = y + n * out.stride(0) + c * out.stride(1);
      for (int64_t oh = 0; oh < out_h; ++oh) {
        uint8_t* drow = dst + oh * out.stride(2);
        if (th == nullptr) {
          for (int64_t ow = 0; ow < out_w; ++ow) {
            drow[ow * out.stride(3)] = width_value(plane + oh * sh, sw, tw, ow);
          }
          continue;
        }
        const int16_t* wh = th->w + oh * th->width;
        const uint8_t* rows = plane + th->first[oh] * sh;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          int64_t acc = int64_t{1} << (th->precision - 1);
          for (int64_t i = 0; i < th->count[oh]; ++i) {
            acc += int64_t{wh[i]} * width_value(rows + i * sh, sw, tw, ow);
          }
          drow[ow * out.stride(3)] = to_byte(acc, th->precision);
        }
      }
    }
  }
}

}  // namespace

Error resample_bilinear_u8(KernelContext& ctx, const char* op, const Tensor& input,
                           bool align_corners, std::optional<double> scale_h,
                           std::optional<double> scale_w, bool antialias, Tensor& out) {
  const int64_t in_h = input.size(2), in_w = input.size(3);
  const int64_t out_h = out.size(2), out_w = out.size(3);
  FixedTaps th, tw;
  if (out_w != in_w) {
    AxisRule a;
    ETR_RETURN_IF_ERROR(axis_rule(op, in_w, out_w, align_corners, scale_w, antialias, &a));
    ETR_RETURN_IF_ERROR(make_taps(ctx, op, a, &tw));
  }
  if (out_h != in_h) {
    AxisRule a;
    ETR_RETURN_IF_ERROR(axis_rule(op, in_h, out_h, align_corners, scale_h, antialias, &a));
    ETR_RETURN_IF_ERROR(make_taps(ctx, op, a, &th));
  }
  resample(input, out_h != in_h ? &th : nullptr, out_w != in_w ? &tw : nullptr, out);
  return Error::Ok;
}

}  // namespace etr
