// AVX2 + FMA kernel of native_dwconv.h (compiled with -mavx2 -mfma by
// etr_isa_sources; reached only where opt::cpu_features().avx2_fma).
#include "backends/xnnpack/native_dwconv_internal.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace etr {
namespace xnnpack {
namespace dw {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

template <bool Masked>
inline __m256 load8(const float* p, __m256i mask) {
  return Masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

// Lanes [0, n) of a block of 8 (n >= 8: all of them).
inline __m256i lanes(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n < 8 ? static_cast<int>(n) : 8),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool Masked>
inline void store8(float* p, __m256i mask, __m256 v) {
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
inline void pixels_block(const DwConvShape& s, const float* x_img, const float* w,
                         const float* bias, size_t oy, size_t ox, float* y_row, size_t c,
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
void pixels_avx2(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
                 size_t oy, size_t ox, float* y_row) {
  const size_t C = s.channels;
  const __m256i all = lanes(8);
  size_t c = 0;
  for (; c + 8 * NB <= C; c += 8 * NB)
    pixels_block<P, NB, false>(s, x_img, w, bias, oy, ox, y_row, c, all);
  for (; c + 8 <= C; c += 8) pixels_block<P, 1, false>(s, x_img, w, bias, oy, ox, y_row, c, all);
  if (c < C) pixels_block<P, 1, true>(s, x_img, w, bias, oy, ox, y_row, c, lanes(C - c));
}
}  // namespace

bool row_avx2(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
              size_t oy, size_t lo, size_t hi, float* y_row) {
  size_t ox = 0;
  for (; ox < lo; ++ox) pixels_avx2<1, 4>(s, x_img, w, bias, oy, ox, y_row);
  for (; ox + 4 <= hi; ox += 4) pixels_avx2<4, 2>(s, x_img, w, bias, oy, ox, y_row);
  for (; ox < s.out_w; ++ox) pixels_avx2<1, 4>(s, x_img, w, bias, oy, ox, y_row);
  return true;
}
#else
bool row_avx2(const DwConvShape&, const float*, const float*, const float*, size_t, size_t, size_t,
              float*) {
  return false;
}
#endif

}  // namespace dw
}  // namespace xnnpack
}  // namespace etr
