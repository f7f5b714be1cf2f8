// aten::grid_sampler_2d.out: samples an [N, C, H, W] input at the
// normalized (x, y) positions of an [N, Ho, Wo, 2] grid (-1 and 1 are the
// corner pixels' centres with align_corners, else their outer edges).
// interpolation_mode 0 bilinear, 1 nearest (round half to even), 2 bicubic
// (A = -0.75); padding_mode 0 zeros, 1 border (clamp), 2 reflection (about
// the corner centres or edges). Float and double, any dim order.
//
// Everything is computed in the input's type with PyTorch's CPU formulas
// and operation order (so float64 agrees to the last bits):
//   unnormalize:  align: (g + 1) * ((size - 1) / 2);  else (g + 1) * (size / 2) - 0.5
//   clip:         into [0, size - 1], NaN -> 0
//   reflect:      |v - low| folded by its whole multiples of twice the span
//                 (truncated quotient), then min(extra, 2 * span - extra) + low
//                 (align: low 0, span size - 1, a span of 0 gives 0; else
//                 low -0.5, span size)
//   bilinear:     w = x - floor(x), e = 1 - w (n, s likewise), corner weights
//                 s*e, s*w, n*e, n*w; sum nw + ne + sw + se in that order
//   bicubic:      unpadded position; taps padded one by one; rows first
// An out-of-range tap reads 0; a NaN or infinite position keeps its NaN
// weights (so zeros padding gives NaN, as PyTorch) and never forms an index.
#include <cmath>
#include <cstdint>

#include "kernels/portable/resample.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

enum Interp : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// Index used for a coordinate that is NaN, infinite or beyond the int32
// range: it and its neighbours are outside every input.
constexpr int64_t kOutside = INT64_MIN / 4;

// Where grid coordinates of one spatial dim land in the input.
template <typename T>
struct Axis {
  int64_t size;
  bool align;
  int64_t padding;

  T unnormalize(T g) const {
    if (align) return (g + T(1)) * (static_cast<T>(size - 1) / T(2));
    return (g + T(1)) * (static_cast<T>(size) / T(2)) - T(0.5);
  }
  T clip(T v) const {
    const T hi = static_cast<T>(size - 1);
    v = v > T(0) ? v : T(0);  // NaN -> 0
    return v < hi ? v : hi;
  }
  T reflect(T v) const {
    T low, twice_span;
    if (align) {
      if (size <= 1) return T(0);
      low = T(0);
      twice_span = static_cast<T>(size - 1) * T(2);
    } else {
      low = T(-0.5);
      twice_span = static_cast<T>(size) * T(2);
    }
    const T a = std::fabs(v - low);
    const T extra = a - std::trunc(a / twice_span) * twice_span;
    const T flipped = twice_span - extra;
    return (std::isnan(extra) || std::isnan(flipped) ? extra + flipped
            : extra < flipped                        ? extra
                                                     : flipped) +
           low;
  }
  // The padding mode applied to an unnormalized coordinate.
  T pad(T v) const {
    if (padding == kBorder) return clip(v);
    if (padding == kReflection) return clip(reflect(v));
    return v;
  }
};

// An integral-valued (or padded) coordinate as an index; kOutside when it
// has none.
template <typename T>
int64_t to_index(T v) {
  return (v > T(-2147483648.0) && v < T(2147483647.0)) ? static_cast<int64_t>(v) : kOutside;
}

// One input plane with its sizes and strides.
template <typename T>
struct Plane {
  const T* data;
  int64_t h, w, sh, sw;
  T at(int64_t y, int64_t x) const {
    return (y >= 0 && y < h && x >= 0 && x < w) ? data[y * sh + x * sw] : T(0);
  }
};

template <typename T>
T cubic_near(T x) {  // |x| <= 1
  const T a = T(-0.75);
  return ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
}
template <typename T>
T cubic_far(T x) {  // 1 < |x| < 2
  const T a = T(-0.75);
  return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
}

template <typename T>
T sample_bicubic(const Plane<T>& p, const Axis<T>& ax, const Axis<T>& ay, T gx, T gy) {
  const T x = ax.unnormalize(gx), y = ay.unnormalize(gy);
  const T fx = std::floor(x), fy = std::floor(y);
  const T tx = x - fx, ty = y - fy;
  const T wx[4] = {cubic_far(tx + T(1)), cubic_near(tx), cubic_near(T(1) - tx),
                   cubic_far(T(2) - tx)};
  const T wy[4] = {cubic_far(ty + T(1)), cubic_near(ty), cubic_near(T(1) - ty),
                   cubic_far(T(2) - ty)};
  int64_t ix[4];
  for (int i = 0; i < 4; ++i) ix[i] = to_index(ax.pad(fx + static_cast<T>(i - 1)));
  T acc = T(0);
  for (int j = 0; j < 4; ++j) {
    const int64_t iy = to_index(ay.pad(fy + static_cast<T>(j - 1)));
    T row = T(0);
    for (int i = 0; i < 4; ++i) row += wx[i] * p.at(iy, ix[i]);
    acc += wy[j] * row;
  }
  return acc;
}

template <typename T>
T sample(const Plane<T>& p, int64_t mode, const Axis<T>& ax, const Axis<T>& ay, T gx, T gy) {
  if (mode == kBicubic) return sample_bicubic(p, ax, ay, gx, gy);
  const T x = ax.pad(ax.unnormalize(gx));
  const T y = ay.pad(ay.unnormalize(gy));
  if (mode == kNearest) return p.at(to_index(std::nearbyint(y)), to_index(std::nearbyint(x)));
  const T x_w = std::floor(x), y_n = std::floor(y);
  const T w = x - x_w, e = T(1) - w;
  const T n = y - y_n, s = T(1) - n;
  const T nw = s * e, ne = s * w, sw = n * e, se = n * w;
  const int64_t ix = to_index(x_w), iy = to_index(y_n);
  return p.at(iy, ix) * nw + p.at(iy, ix + 1) * ne + p.at(iy + 1, ix) * sw +
         p.at(iy + 1, ix + 1) * se;
}

template <typename T>
void grid_sample(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding, bool align,
                 Tensor& out) {
  const Axis<T> ax{input.size(3), align, padding};
  const Axis<T> ay{input.size(2), align, padding};
  const T* g = grid.const_data_ptr<T>();
  T* y = out.data_ptr<T>();
  const int64_t oh = grid.size(1), ow = grid.size(2);
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t c = 0; c < input.size(1); ++c) {
      const Plane<T> p{input.const_data_ptr<T>() + n * input.stride(0) + c * input.stride(1),
                       input.size(2), input.size(3), input.stride(2), input.stride(3)};
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          const T* xy = g + n * grid.stride(0) + i * grid.stride(1) + j * grid.stride(2);
          y[n * out.stride(0) + c * out.stride(1) + i * out.stride(2) + j * out.stride(3)] =
              sample(p, mode, ax, ay, xy[0], xy[grid.stride(3)]);
        }
      }
    }
  }
}

}  // namespace

Error grid_sampler_2d_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& grid,
                              int64_t interpolation_mode, int64_t padding_mode,
                              bool /*align_corners*/, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "input", input.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "grid", grid, input.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, input.dtype()));
  ETR_RETURN_IF_ERROR(check_rank(op, "input", input, 4));
  ETR_RETURN_IF_ERROR(check_rank(op, "grid", grid, 4));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 4));
  ETR_CHECK_OR_FAIL(interpolation_mode >= kBilinear && interpolation_mode <= kBicubic,
                    Error::InvalidArgument,
                    "%s: interpolation_mode %lld is not 0 (bilinear), 1 (nearest) or 2 (bicubic)",
                    op, static_cast<long long>(interpolation_mode));
  ETR_CHECK_OR_FAIL(padding_mode >= kZeros && padding_mode <= kReflection, Error::InvalidArgument,
                    "%s: padding_mode %lld is not 0 (zeros), 1 (border) or 2 (reflection)", op,
                    static_cast<long long>(padding_mode));
  return Error::Ok;
}

void grid_sampler_2d_out(KernelContext& ctx, const Tensor& input, const Tensor& grid,
                         int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                         Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, input.dtype(), {&grid, &out}));
  ETR_KERNEL_CHECK(
      ctx,
      input.dim() == 4 && grid.dim() == 4 && grid.size(0) == input.size(0) && grid.size(3) == 2,
      Error::InvalidArgument, "%s: grid %s must be [N, H_out, W_out, 2] for input %s", op,
      ShapeText(grid).c_str(), ShapeText(input).c_str());
  ETR_KERNEL_CHECK(ctx, input.size(2) > 0 && input.size(3) > 0, Error::InvalidArgument,
                   "%s: input %s must have non-empty spatial dims", op, ShapeText(input).c_str());
  const int64_t sizes[4] = {input.size(0), input.size(1), grid.size(1), grid.size(2)};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 4)));
  const bool known = dispatch_floating(input.dtype(), [&](auto tag) {
    grid_sample<typename decltype(tag)::type>(input, grid, interpolation_mode, padding_mode,
                                              align_corners, out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

}  // namespace etr
