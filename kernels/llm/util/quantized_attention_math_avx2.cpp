// AVX2 + FMA bodies of quantized_attention_math.h: 16 elements per step
// (int8 widened to 16-bit lanes and multiplied in pairs into 32-bit sums for
// the dot product; widened to 32-bit integers, centred and converted to
// float for the accumulation), scalar tails.
#include "kernels/llm/util/quantized_attention_math.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

namespace etr {
namespace llm {
namespace avx2 {

int32_t dot_i16_i8(const int16_t* a, const int8_t* b, int64_t n) {
  __m256i s0 = _mm256_setzero_si256();
  __m256i s1 = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i + 16));
    const __m256i b0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    const __m256i b1 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16)));
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(a0, b0));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(a1, b1));
  }
  for (; i + 16 <= n; i += 16) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i b0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(a0, b0));
  }
  const __m256i s = _mm256_add_epi32(s0, s1);
  // Horizontal sum of the eight 32-bit lanes.
  __m128i h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
  int32_t sum = _mm_cvtsi128_si32(h);
  for (; i < n; ++i) sum += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  return sum;
}

void axpy_i8(float w, const int8_t* x, int32_t zero_point, float* y, int64_t n) {
  const __m256 wv = _mm256_set1_ps(w);
  const __m256i zv = _mm256_set1_epi32(zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m256i lo = _mm256_sub_epi32(_mm256_cvtepi8_epi32(raw), zv);
    const __m256i hi = _mm256_sub_epi32(_mm256_cvtepi8_epi32(_mm_srli_si128(raw, 8)), zv);
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(wv, _mm256_cvtepi32_ps(lo), _mm256_loadu_ps(y + i)));
    _mm256_storeu_ps(y + i + 8,
                     _mm256_fmadd_ps(wv, _mm256_cvtepi32_ps(hi), _mm256_loadu_ps(y + i + 8)));
  }
  for (; i < n; ++i) y[i] += w * static_cast<float>(static_cast<int32_t>(x[i]) - zero_point);
}

}  // namespace avx2
}  // namespace llm
}  // namespace etr

#else

namespace etr {
namespace llm {
namespace avx2 {

int32_t dot_i16_i8(const int16_t* a, const int8_t* b, int64_t n) {
  return generic::dot_i16_i8(a, b, n);
}
void axpy_i8(float w, const int8_t* x, int32_t zero_point, float* y, int64_t n) {
  generic::axpy_i8(w, x, zero_point, y, n);
}

}  // namespace avx2
}  // namespace llm
}  // namespace etr

#endif
