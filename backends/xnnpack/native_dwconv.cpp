#include "backends/xnnpack/native_dwconv.h"

#include <cmath>

#include "runtime/core/thread_pool.h"

#if defined(ETR_HAVE_OPTIMIZED_KERNELS)
#include "kernels/optimized/util/vec_math.h"
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ETR_DW_HAVE_AVX2_PATH 1
#endif

namespace etr {
namespace xnnpack {
namespace {

inline float clamp(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// The window taps of one output row that fall inside the image: ky in
// [ky0, ky1), and for output column ox, kx in [kx_lo(ox), kx_hi(ox)).
struct RowTaps {
  uint32_t ky0 = 0, ky1 = 0;
};

RowTaps row_taps(const DwConvShape& s, size_t oy) {
  RowTaps t;
  const int64_t iy0 = static_cast<int64_t>(oy * s.stride_h) - s.pad_top;
  t.ky0 = s.kernel_h;
  t.ky1 = 0;
  for (uint32_t ky = 0; ky < s.kernel_h; ++ky) {
    const int64_t iy = iy0 + static_cast<int64_t>(ky) * s.dilation_h;
    if (iy < 0 || iy >= static_cast<int64_t>(s.in_h)) continue;
    if (ky < t.ky0) t.ky0 = ky;
    t.ky1 = ky + 1;
  }
  if (t.ky0 > t.ky1) t.ky0 = t.ky1;
  return t;
}

bool tap_inside(const DwConvShape& s, int64_t ix) {
  return ix >= 0 && ix < static_cast<int64_t>(s.in_w);
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

// One output pixel, every channel, taps checked one by one (scalar).
void pixel_generic(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
                   size_t oy, size_t ox, const RowTaps& rt, float* y_px) {
  const size_t C = s.channels;
  const int64_t iy0 = static_cast<int64_t>(oy * s.stride_h) - s.pad_top;
  const int64_t ix0 = static_cast<int64_t>(ox * s.stride_w) - s.pad_left;
  for (size_t c = 0; c < C; ++c) y_px[c] = bias != nullptr ? bias[c] : 0.0f;
  for (uint32_t ky = rt.ky0; ky < rt.ky1; ++ky) {
    const int64_t iy = iy0 + static_cast<int64_t>(ky) * s.dilation_h;
    if (iy < 0 || iy >= static_cast<int64_t>(s.in_h)) continue;
    for (uint32_t kx = 0; kx < s.kernel_w; ++kx) {
      const int64_t ix = ix0 + static_cast<int64_t>(kx) * s.dilation_w;
      if (!tap_inside(s, ix)) continue;
      const float* xp = x_img + (static_cast<size_t>(iy) * s.in_w + static_cast<size_t>(ix)) * C;
      const float* wp = w + (static_cast<size_t>(ky) * s.kernel_w + kx) * C;
      for (size_t c = 0; c < C; ++c) y_px[c] += xp[c] * wp[c];
    }
  }
  for (size_t c = 0; c < C; ++c) y_px[c] = clamp(y_px[c], s.output_min, s.output_max);
}

#ifdef ETR_DW_HAVE_AVX2_PATH
bool have_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

template <bool Masked>
__attribute__((target("avx2,fma"))) inline __m256 load8(const float* p, __m256i mask) {
  return Masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

// Four interior output pixels (ox .. ox + 3) of one row, NB blocks of 8
// channels from c (4 * NB independent accumulators); Masked: one block of
// the channels under `mask` (the tail).
template <int NB, bool Masked>
__attribute__((target("avx2,fma"))) inline void four_pixels_block(
    const DwConvShape& s, const float* x_img, const float* w, const float* bias, size_t oy,
    size_t ox, const RowTaps& rt, float* y_row, size_t c, __m256i mask) {
  const size_t C = s.channels;
  const int64_t iy0 = static_cast<int64_t>(oy * s.stride_h) - s.pad_top;
  const size_t ix0 = ox * s.stride_w - s.pad_left;  // interior: >= 0
  const size_t px_step = s.stride_w * C;            // input floats between the 4 pixels
  __m256 a[NB][4];
  for (int b = 0; b < NB; ++b) {
    const __m256 b0 = bias != nullptr ? load8<Masked>(bias + c + 8 * b, mask) : _mm256_setzero_ps();
    for (int q = 0; q < 4; ++q) a[b][q] = b0;
  }
  for (uint32_t ky = rt.ky0; ky < rt.ky1; ++ky) {
    const int64_t iy = iy0 + static_cast<int64_t>(ky) * s.dilation_h;
    if (iy < 0 || iy >= static_cast<int64_t>(s.in_h)) continue;
    const float* xr = x_img + (static_cast<size_t>(iy) * s.in_w + ix0) * C + c;
    const float* wr = w + static_cast<size_t>(ky) * s.kernel_w * C + c;
    for (uint32_t kx = 0; kx < s.kernel_w; ++kx) {
      const float* xp = xr + static_cast<size_t>(kx) * s.dilation_w * C;
      for (int b = 0; b < NB; ++b) {
        const __m256 wv = load8<Masked>(wr + static_cast<size_t>(kx) * C + 8 * b, mask);
        for (int q = 0; q < 4; ++q)
          a[b][q] = _mm256_fmadd_ps(load8<Masked>(xp + q * px_step + 8 * b, mask), wv, a[b][q]);
      }
    }
  }
  const __m256 lo = _mm256_set1_ps(s.output_min);
  const __m256 hi = _mm256_set1_ps(s.output_max);
  for (int b = 0; b < NB; ++b) {
    for (int q = 0; q < 4; ++q) {
      float* yp = y_row + (ox + q) * C + c + 8 * b;
      const __m256 v = _mm256_min_ps(_mm256_max_ps(a[b][q], lo), hi);
      if (Masked) {
        _mm256_maskstore_ps(yp, mask, v);
      } else {
        _mm256_storeu_ps(yp, v);
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void four_pixels_avx2(const DwConvShape& s, const float* x_img,
                                                          const float* w, const float* bias,
                                                          size_t oy, size_t ox, const RowTaps& rt,
                                                          float* y_row) {
  const size_t C = s.channels;
  const __m256i all = _mm256_set1_epi32(-1);
  size_t c = 0;
  for (; c + 16 <= C; c += 16)
    four_pixels_block<2, false>(s, x_img, w, bias, oy, ox, rt, y_row, c, all);
  for (; c + 8 <= C; c += 8)
    four_pixels_block<1, false>(s, x_img, w, bias, oy, ox, rt, y_row, c, all);
  if (c < C) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(C - c)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    four_pixels_block<1, true>(s, x_img, w, bias, oy, ox, rt, y_row, c, mask);
  }
}
#endif

// y = y * sigmoid(y) over one finished output row (still in cache).
void silu_row(float* y, size_t n) {
#if defined(ETR_HAVE_OPTIMIZED_KERNELS)
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kSilu;
  opt::unary(p, y, y, n);
#else
  for (size_t i = 0; i < n; ++i) y[i] = y[i] * (1.0f / (1.0f + std::exp(-y[i])));
#endif
}

#ifdef ETR_DW_HAVE_AVX2_PATH
// One output pixel whose window may cross the image border: the taps inside
// it, channels 32 at a time (four independent accumulators), then 8 at a
// time with a masked tail.
__attribute__((target("avx2,fma"))) void pixel_avx2(const DwConvShape& s, const float* x_img,
                                                    const float* w, const float* bias, size_t oy,
                                                    size_t ox, const RowTaps& rt, float* y_px) {
  const size_t C = s.channels;
  const int64_t iy0 = static_cast<int64_t>(oy * s.stride_h) - s.pad_top;
  const int64_t ix0 = static_cast<int64_t>(ox * s.stride_w) - s.pad_left;
  uint32_t kx0 = 0, kx1 = 0;  // taps inside horizontally: [kx0, kx1)
  for (uint32_t kx = 0; kx < s.kernel_w; ++kx) {
    if (!tap_inside(s, ix0 + static_cast<int64_t>(kx) * s.dilation_w)) continue;
    if (kx1 == 0) kx0 = kx;
    kx1 = kx + 1;
  }
  const __m256 lo = _mm256_set1_ps(s.output_min);
  const __m256 hi = _mm256_set1_ps(s.output_max);
  size_t c = 0;
  for (; c + 32 <= C; c += 32) {
    __m256 a[4];
    for (int j = 0; j < 4; ++j)
      a[j] = bias != nullptr ? _mm256_loadu_ps(bias + c + 8 * j) : _mm256_setzero_ps();
    for (uint32_t ky = rt.ky0; ky < rt.ky1; ++ky) {
      const int64_t iy = iy0 + static_cast<int64_t>(ky) * s.dilation_h;
      if (iy < 0 || iy >= static_cast<int64_t>(s.in_h)) continue;
      for (uint32_t kx = kx0; kx < kx1; ++kx) {
        const int64_t ix = ix0 + static_cast<int64_t>(kx) * s.dilation_w;
        if (!tap_inside(s, ix)) continue;
        const float* xp =
            x_img + (static_cast<size_t>(iy) * s.in_w + static_cast<size_t>(ix)) * C + c;
        const float* wp = w + (static_cast<size_t>(ky) * s.kernel_w + kx) * C + c;
        for (int j = 0; j < 4; ++j)
          a[j] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 8 * j), _mm256_loadu_ps(wp + 8 * j), a[j]);
      }
    }
    for (int j = 0; j < 4; ++j)
      _mm256_storeu_ps(y_px + c + 8 * j, _mm256_min_ps(_mm256_max_ps(a[j], lo), hi));
  }
  for (; c < C; c += 8) {
    const size_t left = C - c;
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(left < 8 ? static_cast<int>(left) : 8),
                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 a = bias != nullptr ? _mm256_maskload_ps(bias + c, mask) : _mm256_setzero_ps();
    for (uint32_t ky = rt.ky0; ky < rt.ky1; ++ky) {
      const int64_t iy = iy0 + static_cast<int64_t>(ky) * s.dilation_h;
      if (iy < 0 || iy >= static_cast<int64_t>(s.in_h)) continue;
      for (uint32_t kx = kx0; kx < kx1; ++kx) {
        const int64_t ix = ix0 + static_cast<int64_t>(kx) * s.dilation_w;
        if (!tap_inside(s, ix)) continue;
        const float* xp =
            x_img + (static_cast<size_t>(iy) * s.in_w + static_cast<size_t>(ix)) * C + c;
        const float* wp = w + (static_cast<size_t>(ky) * s.kernel_w + kx) * C + c;
        a = _mm256_fmadd_ps(_mm256_maskload_ps(xp, mask), _mm256_maskload_ps(wp, mask), a);
      }
    }
    _mm256_maskstore_ps(y_px + c, mask, _mm256_min_ps(_mm256_max_ps(a, lo), hi));
  }
}
#endif

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
    const RowTaps rt = row_taps(s, oy);
    size_t ox = 0;
#ifdef ETR_DW_HAVE_AVX2_PATH
    if (have_avx2_fma()) {
      for (; ox < lo; ++ox) pixel_avx2(s, x_img, w, bias, oy, ox, rt, y_row + ox * C);
      for (; ox + 4 <= hi; ox += 4) four_pixels_avx2(s, x_img, w, bias, oy, ox, rt, y_row);
      for (; ox < s.out_w; ++ox) pixel_avx2(s, x_img, w, bias, oy, ox, rt, y_row + ox * C);
    }
#endif
    for (; ox < s.out_w; ++ox) pixel_generic(s, x_img, w, bias, oy, ox, rt, y_row + ox * C);
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
