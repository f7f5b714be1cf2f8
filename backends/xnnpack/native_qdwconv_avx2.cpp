// AVX2 kernel of native_qdwconv.h (compiled with -mavx2 -mfma by
// etr_isa_sources; reached only where opt::cpu_features().avx2_fma).
#include "backends/xnnpack/native_qdwconv_internal.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace etr {
namespace xnnpack {
namespace qdw {

#if defined(__AVX2__)
namespace {

// Requantizes 8 sums of channels [c, c + 8) (requantize in
// native_qdwconv_internal.h, lane by lane; _mm256_cvtps_epi32 rounds to
// nearest even under the default rounding mode, as XNNPACK relies on).
inline __m256i requant8(__m256i acc, const float* scale, __m256 hi, __m256 lo, __m256i zp) {
  __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(scale));
  f = _mm256_max_ps(_mm256_min_ps(f, hi), lo);
  return _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
}

// 16 int8 from two vectors of 8 int32 already in int8 range.
inline __m128i narrow16(__m256i a, __m256i b) {
  const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
  return _mm_packs_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
}

}  // namespace

namespace {

// P output pixels, every channel: taps[q][t] is pixel q's tap t. For each
// block of 16 channels the P pixels' sums are 2 * P independent chains, and
// each weight pair is loaded once for all of them.
template <int P>
void pixels(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px, size_t c0) {
  const size_t C = w.channels;
  const size_t cp2 = qdw_padded_channels(C) * 2;
  const uint32_t pairs = (w.taps + 1) / 2;
  const __m256 hi = _mm256_set1_ps(static_cast<float>(w.output_qmax - w.output_zero_point));
  const __m256 lo = _mm256_set1_ps(static_cast<float>(w.output_qmin - w.output_zero_point));
  const __m256i zp = _mm256_set1_epi32(w.output_zero_point);
  size_t c = c0;
  // 16 channels at a time: two taps' bytes interleaved, widened to int16,
  // and multiplied by the interleaved weight pairs (vpmaddwd).
  for (; c + 16 <= C; c += 16) {
    __m256i a0[P], a1[P];
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.bias + c));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.bias + c + 8));
    for (int q = 0; q < P; ++q) {
      a0[q] = b0;
      a1[q] = b1;
    }
    const int16_t* wp = w.w + c * 2;
    for (uint32_t p = 0; p < pairs; ++p, wp += cp2) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + 16));
      for (int q = 0; q < P; ++q) {
        const __m128i va = _mm_loadu_si128(reinterpret_cast<const __m128i*>(taps[q][2 * p] + c));
        const __m128i vb =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(taps[q][2 * p + 1] + c));
        const __m256i l = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(va, vb));
        const __m256i h = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(va, vb));
        a0[q] = _mm256_add_epi32(a0[q], _mm256_madd_epi16(l, w0));
        a1[q] = _mm256_add_epi32(a1[q], _mm256_madd_epi16(h, w1));
      }
    }
    for (int q = 0; q < P; ++q) {
      const __m256i q0 = requant8(a0[q], w.requant + c, hi, lo, zp);
      const __m256i q1 = requant8(a1[q], w.requant + c + 8, hi, lo, zp);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y_px[q] + c), narrow16(q0, q1));
    }
  }
  // 8 channels.
  if (c + 8 <= C) {
    for (int q = 0; q < P; ++q) {
      __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.bias + c));
      const int16_t* wp = w.w + c * 2;
      for (uint32_t p = 0; p < pairs; ++p, wp += cp2) {
        const __m128i va = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(taps[q][2 * p] + c));
        const __m128i vb =
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(taps[q][2 * p + 1] + c));
        const __m256i l = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(va, vb));
        a0 = _mm256_add_epi32(
            a0, _mm256_madd_epi16(l, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp))));
      }
      const __m256i q0 = requant8(a0, w.requant + c, hi, lo, zp);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(y_px[q] + c), narrow16(q0, q0));
    }
    c += 8;
  }
  // The last channels one at a time.
  for (; c < C; ++c) {
    for (int q = 0; q < P; ++q) {
      int32_t acc = w.bias[c];
      const int16_t* wp = w.w + c * 2;
      for (uint32_t p = 0; p < pairs; ++p, wp += cp2)
        acc += static_cast<int32_t>(taps[q][2 * p][c]) * wp[0] +
               static_cast<int32_t>(taps[q][2 * p + 1][c]) * wp[1];
      y_px[q][c] = requantize(acc, w.requant[c], w);
    }
  }
}

}  // namespace

bool pixels_avx2(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px, int count,
                 size_t c0) {
  if (count == 4) {
    pixels<4>(w, taps, y_px, c0);
  } else {
    for (int q = 0; q < count; ++q) pixels<1>(w, taps + q, y_px + q, c0);
  }
  return true;
}

#else

bool pixels_avx2(const QDwConvWeights&, const TapPtrs*, int8_t* const*, int, size_t) {
  return false;
}

#endif

}  // namespace qdw
}  // namespace xnnpack
}  // namespace etr
