#include "backends/xnnpack/native_dwconv.h"

#include <cmath>

#include "backends/xnnpack/native_dwconv_internal.h"
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/vec_math.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace xnnpack {
namespace {

using dw::w_offset;
using dw::Window;
using dw::window_of;
using dw::x_offset;

inline float clamp(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// Output columns [lo, hi) whose every horizontal tap is inside the image.
void interior_columns(const DwConvShape& s, size_t* lo, size_t* hi) {
  const int64_t span = static_cast<int64_t>(s.kernel_w - 1) * s.dilation_w;
  size_t a = 0;
  while (a < s.out_w && static_cast<int64_t>(a * s.stride_w) < s.pad_left) ++a;
  size_t b = a;
  while (b < s.out_w &&
         static_cast<int64_t>(b * s.stride_w) - s.pad_left + span < static_cast<int64_t>(s.in_w)) {
    ++b;
  }
  *lo = a;
  *hi = b;
}

// One output pixel, every channel (scalar).
void pixel_generic(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
                   size_t oy, size_t ox, float* y_px) {
  const size_t C = s.channels;
  const Window win = window_of(s, oy, ox);
  for (size_t c = 0; c < C; ++c) y_px[c] = bias != nullptr ? bias[c] : 0.0f;
  for (uint32_t ky = win.ky.k0; ky < win.ky.k1; ++ky) {
    for (uint32_t kx = win.kx.k0; kx < win.kx.k1; ++kx) {
      const float* xp = x_img + x_offset(s, win, ky, kx);
      const float* wp = w + w_offset(s, ky, kx);
      for (size_t c = 0; c < C; ++c) y_px[c] += xp[c] * wp[c];
    }
  }
  for (size_t c = 0; c < C; ++c) y_px[c] = clamp(y_px[c], s.output_min, s.output_max);
}

// y = y * sigmoid(y) over one finished output row (still in cache).
void silu_row(float* y, size_t n) {
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kSilu;
  opt::unary(p, y, y, n);
}

// Output rows [r0, r1) of all images (row r = image r / out_h, oy r % out_h).
void rows(const DwConvShape& s, const float* x, const float* w, const float* bias, float* y,
          size_t r0, size_t r1) {
  size_t lo = 0, hi = 0;
  interior_columns(s, &lo, &hi);
  const size_t C = s.channels;
  for (size_t r = r0; r < r1; ++r) {
    const size_t n = r / s.out_h, oy = r % s.out_h;
    const float* x_img = x + n * s.in_h * s.in_w * C;
    float* y_row = y + r * s.out_w * C;
    size_t ox = 0;
    if (opt::cpu_features().avx2_fma && dw::row_avx2(s, x_img, w, bias, oy, lo, hi, y_row))
      ox = s.out_w;
    for (; ox < s.out_w; ++ox) pixel_generic(s, x_img, w, bias, oy, ox, y_row + ox * C);
    if (s.silu) silu_row(y_row, s.out_w * C);
  }
}

}  // namespace

void depthwise_conv_nhwc(const DwConvShape& s, const float* x, const float* w, const float* bias,
                         float* y, ThreadPool* pool) {
  const size_t total_rows = s.batch * s.out_h;
  if (total_rows == 0 || s.out_w == 0 || s.channels == 0) return;
  // About 64K multiply-adds per chunk at least: below that, waking the
  // pool costs more than the split saves.
  const size_t per_row = s.out_w * s.channels * s.kernel_h * s.kernel_w;
  const size_t grain = per_row >= 65536 ? 1 : 65536 / (per_row == 0 ? 1 : per_row);
  parallel_for(pool, total_rows, grain, [&](size_t b, size_t e) { rows(s, x, w, bias, y, b, e); });
}

}  // namespace xnnpack
}  // namespace etr
