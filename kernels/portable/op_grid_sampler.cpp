// aten::grid_sampler_2d.out: samples an [N, C, H, W] input at the
// normalized (x, y) positions of an [N, Ho, Wo, 2] grid (-1 and 1 are the
// corner pixels' centres with align_corners, else their outer edges).
// interpolation_mode 0 bilinear, 1 nearest (round half to even), 2 bicubic
// (A = -0.75); padding_mode 0 zeros, 1 border (clamp), 2 reflection (about
// the corner centres or edges). Coordinates are computed in the input's
// type, as in PyTorch; non-finite or huge ones read as out of range. Float
// and double, any dim order.
#include <cmath>

#include "kernels/portable/resample.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

enum Interp : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

struct Sampler {
  int64_t padding = kZeros;
  bool align = false;
};

template <typename T>
T unnormalize(T coord, int64_t size, bool align) {
  const T s = static_cast<T>(size);
  return align ? (coord + T(1)) / T(2) * (s - T(1)) : ((coord + T(1)) * s - T(1)) / T(2);
}

template <typename T>
T clip(T v, int64_t size) {
  const T hi = static_cast<T>(size - 1);
  return v < T(0) ? T(0) : (v > hi ? hi : v);
}

// Reflects v into [lo2 / 2, hi2 / 2] (bounds given doubled).
template <typename T>
T reflect(T v, int64_t lo2, int64_t hi2) {
  if (lo2 == hi2) return T(0);
  const T lo = static_cast<T>(lo2) / T(2);
  const T span = static_cast<T>(hi2 - lo2) / T(2);
  v = std::fabs(v - lo);
  const T extra = std::fmod(v, span);
  const T flips = std::floor(v / span);
  return std::fmod(flips, T(2)) == T(0) ? extra + lo : span - extra + lo;
}

// -100 (out of range) for a coordinate that is not finite or beyond the
// int32 range, so converting it to an index is defined.
template <typename T>
T safe_coordinate(T v) {
  const bool ok =
      std::isfinite(v) && v > static_cast<T>(INT32_MIN) && v < static_cast<T>(INT32_MAX);
  return ok ? v : T(-100);
}

// Applies the padding mode to an unnormalized coordinate.
template <typename T>
T apply_padding(T v, int64_t size, const Sampler& s) {
  if (s.padding == kBorder) {
    v = clip(v, size);
  } else if (s.padding == kReflection) {
    v = s.align ? reflect(v, 0, 2 * (size - 1)) : reflect(v, -1, 2 * size - 1);
    v = clip(v, size);
  }
  return safe_coordinate(v);
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
T sample_bicubic(const Plane<T>& p, T x, T y, const Sampler& s) {
  const T fx = std::floor(x), fy = std::floor(y);
  const T tx = x - fx, ty = y - fy;
  const T wx[4] = {cubic_far(tx + T(1)), cubic_near(tx), cubic_near(T(1) - tx),
                   cubic_far(T(2) - tx)};
  const T wy[4] = {cubic_far(ty + T(1)), cubic_near(ty), cubic_near(T(1) - ty),
                   cubic_far(T(2) - ty)};
  T acc = T(0);
  for (int j = 0; j < 4; ++j) {
    const T yy = apply_padding(fy - T(1) + static_cast<T>(j), p.h, s);
    T row = T(0);
    for (int i = 0; i < 4; ++i) {
      const T xx = apply_padding(fx - T(1) + static_cast<T>(i), p.w, s);
      row += wx[i] * p.at(static_cast<int64_t>(yy), static_cast<int64_t>(xx));
    }
    acc += wy[j] * row;
  }
  return acc;
}

template <typename T>
T sample(const Plane<T>& p, int64_t mode, T gx, T gy, const Sampler& s) {
  T x = unnormalize(gx, p.w, s.align);
  T y = unnormalize(gy, p.h, s.align);
  if (mode == kBicubic) {
    // A non-finite position would give NaN weights: read it as out of range.
    if (!std::isfinite(x) || !std::isfinite(y)) x = y = T(-100);
    return sample_bicubic(p, x, y, s);
  }
  x = apply_padding(x, p.w, s);
  y = apply_padding(y, p.h, s);
  if (mode == kNearest) {
    return p.at(static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)));
  }
  const T x0 = std::floor(x), y0 = std::floor(y);
  const int64_t ix = static_cast<int64_t>(x0), iy = static_cast<int64_t>(y0);
  const T ex = x0 + T(1) - x, ey = y0 + T(1) - y;  // weights of the west / north taps
  const T wx = x - x0, wy = y - y0;
  return p.at(iy, ix) * ex * ey + p.at(iy, ix + 1) * wx * ey + p.at(iy + 1, ix) * ex * wy +
         p.at(iy + 1, ix + 1) * wx * wy;
}

template <typename T>
void grid_sample(const Tensor& input, const Tensor& grid, int64_t mode, const Sampler& s,
                 Tensor& out) {
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
              sample(p, mode, xy[0], xy[grid.stride(3)], s);
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
  const Sampler s{padding_mode, align_corners};
  const bool known = dispatch_floating(input.dtype(), [&](auto tag) {
    grid_sample<typename decltype(tag)::type>(input, grid, interpolation_mode, s, out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, input.dtype()));
}

}  // namespace etr
