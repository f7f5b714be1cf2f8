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
// Output pixels [ox, ox + 8) of row oy, channels [c, c + 8), for a K x K
// filter (dilation 1) at horizontal stride S (the clamp applied, SiLU left
// to the row pass of native_dwconv.cpp): along a filter row the 8 pixels'
// windows overlap, so input pixel j (from the first window's start) is
// loaded once and multiplied into every pixel q with tap kx = j - q * S:
// 7 * S + K loads per filter row instead of 8 * K. rows[ky] points at input
// pixel j = 0 of filter row ky (channel c), pixels `step` floats apart;
// filter rows outside [k0, k1) lie outside the image and are skipped. The
// first `count` pixels are stored.
template <int K, int S>
inline void slide8(const float* const* rows, size_t step, uint32_t k0, uint32_t k1, const float* w,
                   size_t C, const float* bias, float lo_v, float hi_v, float* y, int count) {
  constexpr int kSpan = 7 * S + K;
  __m256 acc[8];
  const __m256 b0 = bias != nullptr ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
  for (int q = 0; q < 8; ++q) acc[q] = b0;
  for (uint32_t ky = k0; ky < k1; ++ky) {
    const float* xp = rows[ky];
    const float* wp = w + static_cast<size_t>(ky) * K * C;
    __m256 wv[K];
#pragma GCC unroll 5
    for (int kx = 0; kx < K; ++kx) wv[kx] = _mm256_loadu_ps(wp + kx * C);
#pragma GCC unroll 19
    for (int j = 0; j < kSpan; ++j) {
      const __m256 v = _mm256_loadu_ps(xp + j * step);
#pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) {
        const int kx = j - q * S;
        if (kx >= 0 && kx < K) acc[q] = _mm256_fmadd_ps(v, wv[kx], acc[q]);
      }
    }
  }
  const __m256 lo = _mm256_set1_ps(lo_v);
  const __m256 hi = _mm256_set1_ps(hi_v);
  for (int q = 0; q < count; ++q)
    _mm256_storeu_ps(y + q * C, _mm256_min_ps(_mm256_max_ps(acc[q], lo), hi));
}

// slide8's row pointers for a group read in place: input column ix0 (>= 0),
// channel c, of the image rows iy0 + ky for the filter rows ky inside it.
inline void rows_in_place(const DwConvShape& s, const float* x_img, int64_t iy0, int64_t ix0,
                          size_t c, TapRange ky, const float** rows) {
  for (uint32_t r = ky.k0; r < ky.k1; ++r)
    rows[r] =
        x_img + (static_cast<size_t>(iy0 + r) * s.in_w + static_cast<size_t>(ix0)) * s.channels + c;
}

// Interior pixels [ox, hi) of row oy, 8 at a time while they fit, reading
// the input in place (channels a multiple of 8); returns the first pixel left.
template <int K, int S>
size_t slide_interior(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
                      size_t oy, size_t ox, size_t hi, float* y_row) {
  const size_t C = s.channels;
  const int64_t iy0 = static_cast<int64_t>(oy * S) - s.pad_top;
  const TapRange ky = tap_range(iy0, K, 1, s.in_h);
  const float* rows[K];
  for (; ox + 8 <= hi; ox += 8) {
    // Every tap inside: ox * S >= pad_left.
    const int64_t ix0 = static_cast<int64_t>(ox * S) - s.pad_left;
    for (size_t c = 0; c < C; c += 8) {
      rows_in_place(s, x_img, iy0, ix0, c, ky, rows);
      slide8<K, S>(rows, C, ky.k0, ky.k1, w + c, C, bias == nullptr ? nullptr : bias + c,
                   s.output_min, s.output_max, y_row + ox * C + c, 8);
    }
  }
  return ox;
}

// The whole row oy, 8 pixels at a time from pixel 0: a group whose windows
// reach into the padding, or past the last output pixel, reads a
// zero-padded copy of its 7 * S + K input pixels per filter row (a few
// hundred bytes), so the border runs at the interior's speed instead of a
// pixel at a time; the other groups read the input in place.
template <int K, int S>
void slide_padded(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
                  size_t oy, float* y_row) {
  constexpr int kSpan = 7 * S + K;
  const size_t C = s.channels;
  const int64_t iy0 = static_cast<int64_t>(oy * S) - s.pad_top;
  const int64_t in_w = static_cast<int64_t>(s.in_w);
  const TapRange ky = tap_range(iy0, K, 1, s.in_h);
  alignas(32) float pad[K][kSpan][8];
  const float* rows[K];
  for (size_t ox = 0; ox < s.out_w; ox += 8) {
    const int count = s.out_w - ox < 8 ? static_cast<int>(s.out_w - ox) : 8;
    const int64_t ix0 = static_cast<int64_t>(ox * S) - s.pad_left;  // input column of j = 0
    const bool inside = count == 8 && ix0 >= 0 && ix0 + kSpan <= in_w;
    float* y = y_row + ox * C;
    for (size_t c = 0; c < C; c += 8) {
      if (inside) {
        rows_in_place(s, x_img, iy0, ix0, c, ky, rows);
      } else {
        for (uint32_t r = ky.k0; r < ky.k1; ++r) {
          const float* row = x_img + static_cast<size_t>(iy0 + r) * s.in_w * C + c;
          for (int j = 0; j < kSpan; ++j) {
            const int64_t ix = ix0 + j;
            _mm256_store_ps(pad[r][j], ix >= 0 && ix < in_w ? _mm256_loadu_ps(row + ix * C)
                                                            : _mm256_setzero_ps());
          }
          rows[r] = pad[r][0];
        }
      }
      slide8<K, S>(rows, inside ? C : 8, ky.k0, ky.k1, w + c, C,
                   bias == nullptr ? nullptr : bias + c, s.output_min, s.output_max, y + c, count);
    }
  }
}

// Whether the sliding kernel takes s: square 3x3 (stride 1) or 5x5 (stride
// 1 or 2) filters, dilation 1, channels a multiple of 8. (3x3 at stride 2
// measured 0.8x the four-pixel kernel on MobileNetV2's 112x112 layer; the
// others 1.1-1.3x faster, CPU time, Zen 4.)
bool slides(const DwConvShape& s) {
  return s.kernel_h == s.kernel_w && s.dilation_h == 1 && s.dilation_w == 1 &&
         s.channels % 8 == 0 && s.stride_h == s.stride_w &&
         ((s.kernel_w == 3 && s.stride_w == 1) ||
          (s.kernel_w == 5 && (s.stride_w == 1 || s.stride_w == 2)));
}

// Rows this wide or wider, or at stride 1 at most 8 pixels wide, run
// slide_padded; the others slide_interior with the border pixels one at a
// time. Per layer (MobileNetV2's and EfficientNet-B0's shapes, Zen 4, best of
// 3 alternating runs): 112 and 56 wide 8-15% faster padded, 7 wide at stride
// 1 14% (3x3) and 33% (5x5) faster; 28 wide even, 14 wide 10% slower (both
// of its groups padded), 7 wide at stride 2 (5x5: 19 input pixels copied per
// filter row for 7 outputs) 11% slower.
constexpr size_t kPaddedMinWidth = 48;

template <int K, int S>
void slide_row(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
               size_t oy, size_t lo, size_t hi, float* y_row) {
  if (s.out_w >= kPaddedMinWidth || (S == 1 && s.out_w <= 8)) {
    slide_padded<K, S>(s, x_img, w, bias, oy, y_row);
    return;
  }
  size_t ox = 0;
  for (; ox < lo; ++ox) pixels_avx2<1, 4>(s, x_img, w, bias, oy, ox, y_row);
  ox = slide_interior<K, S>(s, x_img, w, bias, oy, ox, hi, y_row);
  for (; ox + 4 <= hi; ox += 4) pixels_avx2<4, 2>(s, x_img, w, bias, oy, ox, y_row);
  for (; ox < s.out_w; ++ox) pixels_avx2<1, 4>(s, x_img, w, bias, oy, ox, y_row);
}
}  // namespace

bool row_avx2(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
              size_t oy, size_t lo, size_t hi, float* y_row) {
  if (slides(s)) {
    if (s.kernel_w == 3) {
      slide_row<3, 1>(s, x_img, w, bias, oy, lo, hi, y_row);
    } else if (s.stride_w == 1) {
      slide_row<5, 1>(s, x_img, w, bias, oy, lo, hi, y_row);
    } else {
      slide_row<5, 2>(s, x_img, w, bias, oy, lo, hi, y_row);
    }
    return true;
  }
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
