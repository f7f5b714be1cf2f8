#include "backends/xnnpack/native_dwconv.h"

#include <cmath>

#include "kernels/cpu_math/vec_math.h"
#include "runtime/core/thread_pool.h"

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

// The taps k of a window starting at `origin` (may be negative: padding)
// whose position origin + k * dilation lies in [0, extent): [k0, k1). The
// position grows with k, so they form one range (empty: k0 == k1).
struct TapRange {
  uint32_t k0 = 0, k1 = 0;
};

TapRange tap_range(int64_t origin, uint32_t kernel, uint32_t dilation, size_t extent) {
  TapRange t;
  t.k0 = kernel;
  for (uint32_t k = 0; k < kernel; ++k) {
    const int64_t p = origin + static_cast<int64_t>(k) * dilation;
    if (p < 0 || p >= static_cast<int64_t>(extent)) continue;
    if (t.k0 == kernel) t.k0 = k;
    t.k1 = k + 1;
  }
  if (t.k0 > t.k1) t.k0 = t.k1;
  return t;
}

// Where output pixel (oy, ox) reads: its window's origin and the taps inside.
struct Window {
  int64_t iy0 = 0, ix0 = 0;
  TapRange ky, kx;
};

Window window_of(const DwConvShape& s, size_t oy, size_t ox) {
  Window win;
  win.iy0 = static_cast<int64_t>(oy * s.stride_h) - s.pad_top;
  win.ix0 = static_cast<int64_t>(ox * s.stride_w) - s.pad_left;
  win.ky = tap_range(win.iy0, s.kernel_h, s.dilation_h, s.in_h);
  win.kx = tap_range(win.ix0, s.kernel_w, s.dilation_w, s.in_w);
  return win;
}

// Offsets (floats) of tap (ky, kx) into the image and into the filter.
size_t x_offset(const DwConvShape& s, const Window& win, uint32_t ky, uint32_t kx) {
  const int64_t iy = win.iy0 + static_cast<int64_t>(ky) * s.dilation_h;
  const int64_t ix = win.ix0 + static_cast<int64_t>(kx) * s.dilation_w;
  return (static_cast<size_t>(iy) * s.in_w + static_cast<size_t>(ix)) * s.channels;
}
size_t w_offset(const DwConvShape& s, uint32_t ky, uint32_t kx) {
  return (static_cast<size_t>(ky) * s.kernel_w + kx) * s.channels;
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

#ifdef ETR_DW_HAVE_AVX2_PATH
bool have_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

template <bool Masked>
__attribute__((target("avx2,fma"))) inline __m256 load8(const float* p, __m256i mask) {
  return Masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

// Lanes [0, n) of a block of 8 (n >= 8: all of them).
__attribute__((target("avx2,fma"))) inline __m256i lanes(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n < 8 ? static_cast<int>(n) : 8),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool Masked>
__attribute__((target("avx2,fma"))) inline void store8(float* p, __m256i mask, __m256 v) {
  if (Masked) {
    _mm256_maskstore_ps(p, mask, v);
  } else {
    _mm256_storeu_ps(p, v);
  }
}

// P output pixels of one row from ox (P > 1: interior pixels, every tap
// inside; P == 1: any pixel, its taps inside only), NB blocks of 8 channels
// from c: P * NB independent accumulators. Masked: one block of the
// channels under `mask` (the tail).
template <int P, int NB, bool Masked>
__attribute__((target("avx2,fma"))) inline void pixels_block(const DwConvShape& s,
                                                             const float* x_img, const float* w,
                                                             const float* bias, size_t oy,
                                                             size_t ox, float* y_row, size_t c,
                                                             __m256i mask) {
  const Window win = window_of(s, oy, ox);
  const size_t px_step = s.stride_w * s.channels;  // input floats between neighbouring pixels
  __m256 a[NB][P];
  for (int b = 0; b < NB; ++b) {
    const __m256 b0 = bias != nullptr ? load8<Masked>(bias + c + 8 * b, mask) : _mm256_setzero_ps();
    for (int q = 0; q < P; ++q) a[b][q] = b0;
  }
  for (uint32_t ky = win.ky.k0; ky < win.ky.k1; ++ky) {
    for (uint32_t kx = win.kx.k0; kx < win.kx.k1; ++kx) {
      const float* xp = x_img + x_offset(s, win, ky, kx) + c;
      const float* wp = w + w_offset(s, ky, kx) + c;
      for (int b = 0; b < NB; ++b) {
        const __m256 wv = load8<Masked>(wp + 8 * b, mask);
        for (int q = 0; q < P; ++q)
          a[b][q] = _mm256_fmadd_ps(load8<Masked>(xp + q * px_step + 8 * b, mask), wv, a[b][q]);
      }
    }
  }
  const __m256 lo = _mm256_set1_ps(s.output_min);
  const __m256 hi = _mm256_set1_ps(s.output_max);
  for (int b = 0; b < NB; ++b) {
    for (int q = 0; q < P; ++q) {
      store8<Masked>(y_row + (ox + q) * s.channels + c + 8 * b, mask,
                     _mm256_min_ps(_mm256_max_ps(a[b][q], lo), hi));
    }
  }
}

// P pixels from ox, every channel: blocks of NB * 8 channels, then of 8,
// then the masked tail.
template <int P, int NB>
__attribute__((target("avx2,fma"))) void pixels_avx2(const DwConvShape& s, const float* x_img,
                                                     const float* w, const float* bias, size_t oy,
                                                     size_t ox, float* y_row) {
  const size_t C = s.channels;
  const __m256i all = lanes(8);
  size_t c = 0;
  for (; c + 8 * NB <= C; c += 8 * NB)
    pixels_block<P, NB, false>(s, x_img, w, bias, oy, ox, y_row, c, all);
  for (; c + 8 <= C; c += 8) pixels_block<P, 1, false>(s, x_img, w, bias, oy, ox, y_row, c, all);
  if (c < C) pixels_block<P, 1, true>(s, x_img, w, bias, oy, ox, y_row, c, lanes(C - c));
}
#endif

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
#ifdef ETR_DW_HAVE_AVX2_PATH
    if (have_avx2_fma()) {
      // Border pixels one at a time (32 channels in flight), interior ones
      // four at a time (16 channels).
      for (; ox < lo; ++ox) pixels_avx2<1, 4>(s, x_img, w, bias, oy, ox, y_row);
      for (; ox + 4 <= hi; ox += 4) pixels_avx2<4, 2>(s, x_img, w, bias, oy, ox, y_row);
      for (; ox < s.out_w; ++ox) pixels_avx2<1, 4>(s, x_img, w, bias, oy, ox, y_row);
    }
#endif
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
