// AVX2 loops of native_qs8_elementwise.h (compiled with AVX2 by etr_isa_sources;
// reached only where cpu_features() reports it).
#include "backends/xnnpack/native_qs8_elementwise.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace etr {
namespace xnnpack {
namespace qadd {

#if defined(__AVX2__)

size_t add_avx2(const int8_t* a, const int8_t* b, int8_t* y, size_t n, const QAddParams& p) {
  const __m256i ma = _mm256_set1_epi32(p.a_multiplier);
  const __m256i mb = _mm256_set1_epi32(p.b_multiplier);
  const __m256i bias = _mm256_set1_epi32(p.bias);
  const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(p.shift));
  const __m256i lo = _mm256_set1_epi32(p.low);
  const __m256i hi = _mm256_set1_epi32(p.high);
  const __m256i zp = _mm256_set1_epi32(p.output_zero_point);
  // packs interleave the 128-bit lanes: dwords back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i v[4];
    for (int j = 0; j < 4; ++j) {
      const __m256i xa =
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i + 8 * j)));
      const __m256i xb =
          _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i + 8 * j)));
      __m256i acc = _mm256_add_epi32(bias, _mm256_mullo_epi32(xa, ma));
      acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(xb, mb));
      acc = _mm256_sra_epi32(acc, shift);
      acc = _mm256_min_epi32(_mm256_max_epi32(acc, lo), hi);
      v[j] = _mm256_add_epi32(acc, zp);
    }
    const __m256i w01 = _mm256_packs_epi32(v[0], v[1]);
    const __m256i w23 = _mm256_packs_epi32(v[2], v[3]);
    const __m256i bytes = _mm256_packs_epi16(w01, w23);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        _mm256_permutevar8x32_epi32(bytes, order));
  }
  return i;
}

size_t quantize_avx2(const float* x, int8_t* y, size_t n, float inv_scale, int32_t zero_point) {
  const __m256 scale = _mm256_set1_ps(inv_scale);
  const __m256 hi = _mm256_set1_ps(static_cast<float>(127 - zero_point));
  const __m256i zp = _mm256_set1_epi16(static_cast<int16_t>(zero_point));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    // cvtps2dq rounds half to even and turns values past int32 into
    // INT32_MIN; the saturating packs then give -128 for those, as the
    // final clamp would. min(x, hi) keeps a NaN's hi (operand order).
    __m256i v[4];
    for (int j = 0; j < 4; ++j)
      v[j] = _mm256_cvtps_epi32(
          _mm256_min_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * j), scale), hi));
    const __m256i w01 = _mm256_adds_epi16(_mm256_packs_epi32(v[0], v[1]), zp);
    const __m256i w23 = _mm256_adds_epi16(_mm256_packs_epi32(v[2], v[3]), zp);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        _mm256_permutevar8x32_epi32(_mm256_packs_epi16(w01, w23), order));
  }
  return i;
}

namespace {

// Output byte 16 k + j of 48 is pixel (16 k + j) / 3, channel (16 k + j) % 3:
// kInterleave3[k][c] picks channel c's codes into their bytes (-128: zero).
alignas(16) const int8_t kInterleave3[3][3][16] = {
    {{0, -128, -128, 1, -128, -128, 2, -128, -128, 3, -128, -128, 4, -128, -128, 5},
     {-128, 0, -128, -128, 1, -128, -128, 2, -128, -128, 3, -128, -128, 4, -128, -128},
     {-128, -128, 0, -128, -128, 1, -128, -128, 2, -128, -128, 3, -128, -128, 4, -128}},
    {{-128, -128, 6, -128, -128, 7, -128, -128, 8, -128, -128, 9, -128, -128, 10, -128},
     {5, -128, -128, 6, -128, -128, 7, -128, -128, 8, -128, -128, 9, -128, -128, 10},
     {-128, 5, -128, -128, 6, -128, -128, 7, -128, -128, 8, -128, -128, 9, -128, -128}},
    {{-128, 11, -128, -128, 12, -128, -128, 13, -128, -128, 14, -128, -128, 15, -128, -128},
     {-128, -128, 11, -128, -128, 12, -128, -128, 13, -128, -128, 14, -128, -128, 15, -128},
     {10, -128, -128, 11, -128, -128, 12, -128, -128, 13, -128, -128, 14, -128, -128, 15}}};

// 16 values quantized into 16 codes (as quantize_avx2 does 32).
inline __m128i quantize16(const float* x, __m256 scale, __m256 hi, __m256i zp, __m256i order) {
  const __m256i v0 =
      _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_loadu_ps(x), scale), hi));
  const __m256i v1 =
      _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_loadu_ps(x + 8), scale), hi));
  const __m256i w = _mm256_adds_epi16(_mm256_packs_epi32(v0, v1), zp);
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_packs_epi16(w, w), order));
}

}  // namespace

size_t quantize3_avx2(const float* x0, const float* x1, const float* x2, int8_t* y, size_t n,
                      float inv_scale, int32_t zero_point) {
  const __m256 scale = _mm256_set1_ps(inv_scale);
  const __m256 hi = _mm256_set1_ps(static_cast<float>(127 - zero_point));
  const __m256i zp = _mm256_set1_epi16(static_cast<int16_t>(zero_point));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  __m128i m[3][3];
  for (int k = 0; k < 3; ++k) {
    for (int c = 0; c < 3; ++c)
      m[k][c] = _mm_load_si128(reinterpret_cast<const __m128i*>(kInterleave3[k][c]));
  }
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i a = quantize16(x0 + i, scale, hi, zp, order);
    const __m128i b = quantize16(x1 + i, scale, hi, zp, order);
    const __m128i c = quantize16(x2 + i, scale, hi, zp, order);
    for (int k = 0; k < 3; ++k) {
      const __m128i out =
          _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(a, m[k][0]), _mm_shuffle_epi8(b, m[k][1])),
                       _mm_shuffle_epi8(c, m[k][2]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + 3 * i + 16 * k), out);
    }
  }
  return i;
}

#else

size_t quantize3_avx2(const float*, const float*, const float*, int8_t*, size_t, float, int32_t) {
  return 0;
}
size_t add_avx2(const int8_t*, const int8_t*, int8_t*, size_t, const QAddParams&) { return 0; }
size_t quantize_avx2(const float*, int8_t*, size_t, float, int32_t) { return 0; }

#endif

}  // namespace qadd
}  // namespace xnnpack
}  // namespace etr
