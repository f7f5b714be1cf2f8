// AVX2+FMA kernels of conv_depthwise.h: four output rows at a time, 16
// columns per step, then 8, then a masked tail; 3x3 and 5x5 broadcast their
// weights once per band.
#include "kernels/cpu_math/conv_depthwise.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <cstdint>

namespace etr {
namespace opt {
namespace {

// Mask of the first `n` (0..8) lanes.
__m256i tail_mask(int64_t n) {
  alignas(32) static const int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                 0,  0,  0,  0,  0,  0,  0,  0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - n));
}

// Weight t: from registers for a fixed tap count, else broadcast on use.
template <int kTaps>
__m256 weight_at(const __m256* wv, const float* w, int64_t t) {
  return kTaps > 0 ? wv[t] : _mm256_set1_ps(w[t]);
}

// kRows output rows at once (independent accumulation chains), 16 columns
// per step, then 8, then a masked tail. kTaps == 0: `taps` at run time.
template <int kTaps, int kRows>
void row_block(const __m256* wv, const float* w, int64_t taps, const int64_t* off, const float* in,
               int64_t in_stride, __m256 vb, float* out, int64_t out_stride, int64_t n) {
  const int64_t nt = kTaps > 0 ? kTaps : taps;
  int64_t x = 0;
  for (; x + 16 <= n; x += 16) {
    __m256 a[kRows][2];
    for (int r = 0; r < kRows; ++r) a[r][0] = a[r][1] = vb;
    for (int64_t t = 0; t < nt; ++t) {
      const __m256 wt = weight_at<kTaps>(wv, w, t);
      const float* s = in + off[t] + x;
      for (int r = 0; r < kRows; ++r) {
        a[r][0] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(s + r * in_stride), a[r][0]);
        a[r][1] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(s + r * in_stride + 8), a[r][1]);
      }
    }
    for (int r = 0; r < kRows; ++r) {
      _mm256_storeu_ps(out + r * out_stride + x, a[r][0]);
      _mm256_storeu_ps(out + r * out_stride + x + 8, a[r][1]);
    }
  }
  while (x < n) {
    const int64_t lanes = n - x < 8 ? n - x : 8;
    const __m256i m = tail_mask(lanes);
    __m256 a[kRows];
    for (int r = 0; r < kRows; ++r) a[r] = vb;
    for (int64_t t = 0; t < nt; ++t) {
      const __m256 wt = weight_at<kTaps>(wv, w, t);
      const float* s = in + off[t] + x;
      for (int r = 0; r < kRows; ++r) {
        a[r] = _mm256_fmadd_ps(wt, _mm256_maskload_ps(s + r * in_stride, m), a[r]);
      }
    }
    for (int r = 0; r < kRows; ++r) _mm256_maskstore_ps(out + r * out_stride + x, m, a[r]);
    x += lanes;
  }
}

template <int kTaps>
void rows_fixed(const float* in, int64_t in_stride, const int64_t* off, const float* w,
                int64_t taps, float bias, float* out, int64_t out_stride, int64_t n, int64_t rows) {
  __m256 wv[kTaps > 0 ? kTaps : 1];
  for (int t = 0; t < kTaps; ++t) wv[t] = _mm256_set1_ps(w[t]);
  const __m256 vb = _mm256_set1_ps(bias);
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    row_block<kTaps, 4>(wv, w, taps, off, in + r * in_stride, in_stride, vb, out + r * out_stride,
                        out_stride, n);
  }
  // 1-3 rows left: one block of that many (independent chains).
  const float* rin = in + r * in_stride;
  float* rout = out + r * out_stride;
  switch (rows - r) {
    case 3: row_block<kTaps, 3>(wv, w, taps, off, rin, in_stride, vb, rout, out_stride, n); break;
    case 2: row_block<kTaps, 2>(wv, w, taps, off, rin, in_stride, vb, rout, out_stride, n); break;
    case 1: row_block<kTaps, 1>(wv, w, taps, off, rin, in_stride, vb, rout, out_stride, n); break;
    default: break;
  }
}

}  // namespace

void pad_row_avx2(const float* src, int64_t w, int64_t pw, float* dst, int64_t len) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  auto clamp8 = [](int64_t v) { return static_cast<int32_t>(v < 0 ? 0 : v > 8 ? 8 : v); };
  for (int64_t c = 0; c < len; c += 8) {
    const int64_t ic = c - pw;  // input column of lane 0
    if (len - c >= 8 && ic >= 0 && ic + 8 <= w) {
      _mm256_storeu_ps(dst + c, _mm256_loadu_ps(src + ic));
      continue;
    }
    // Lane l is stored when l < len - c and read when also -ic <= l < w - ic.
    const __m256i in_row = _mm256_cmpgt_epi32(_mm256_set1_epi32(clamp8(len - c)), lane);
    const __m256i before = _mm256_cmpgt_epi32(_mm256_set1_epi32(clamp8(-ic)), lane);
    const __m256i inside = _mm256_cmpgt_epi32(_mm256_set1_epi32(clamp8(w - ic)), lane);
    const __m256i take = _mm256_andnot_si256(before, _mm256_and_si256(inside, in_row));
    // Masked-off lanes are not read, so lane 0's address may lie outside src.
    const float* base = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(src) +
                                                       static_cast<uintptr_t>(ic) * sizeof(float));
    _mm256_maskstore_ps(dst + c, in_row, _mm256_maskload_ps(base, take));
  }
}

void deinterleave2_avx2(const float* src, float* even, float* odd, int64_t n) {
  int64_t x = 0;
  for (; x + 8 <= n; x += 8) {
    const __m256 a = _mm256_loadu_ps(src + 2 * x);
    const __m256 b = _mm256_loadu_ps(src + 2 * x + 8);
    // Per 128-bit lane: a0 a2 b0 b2 | a4 a6 b4 b6; then 64-bit pairs 0 2 1 3.
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_ps(even + x, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
    _mm256_storeu_ps(odd + x, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xD8)));
  }
  for (; x < n; ++x) {
    even[x] = src[2 * x];
    odd[x] = src[2 * x + 1];
  }
}

void depthwise_rows_avx2(const float* in, int64_t in_stride, const int64_t* off, const float* w,
                         int64_t taps, float bias, float* out, int64_t out_stride, int64_t n,
                         int64_t rows) {
  switch (taps) {
    case 9: rows_fixed<9>(in, in_stride, off, w, taps, bias, out, out_stride, n, rows); return;
    case 25: rows_fixed<25>(in, in_stride, off, w, taps, bias, out, out_stride, n, rows); return;
    default: rows_fixed<0>(in, in_stride, off, w, taps, bias, out, out_stride, n, rows);
  }
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (cpu_features), kept linkable.

namespace etr {
namespace opt {

void pad_row_avx2(const float* src, int64_t w, int64_t pw, float* dst, int64_t len) {
  for (int64_t c = 0; c < len; ++c) {
    const int64_t ic = c - pw;
    dst[c] = ic >= 0 && ic < w ? src[ic] : 0.0f;
  }
}

void deinterleave2_avx2(const float* src, float* even, float* odd, int64_t n) {
  for (int64_t x = 0; x < n; ++x) {
    even[x] = src[2 * x];
    odd[x] = src[2 * x + 1];
  }
}

void depthwise_rows_avx2(const float* in, int64_t in_stride, const int64_t* off, const float* w,
                         int64_t taps, float bias, float* out, int64_t out_stride, int64_t n,
                         int64_t rows) {
  depthwise_rows_generic(in, in_stride, off, w, taps, bias, out, out_stride, n, rows);
}

}  // namespace opt
}  // namespace etr

#endif
