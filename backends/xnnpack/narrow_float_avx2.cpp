// F16C conversions of narrow_float.h (compiled with -mavx2 -mfma -mf16c by
// etr_isa_sources; reached only where opt::cpu_features() reports AVX2 and
// F16C). Conversions to fp16 round to nearest even, as the scalar ones do.
#include "backends/xnnpack/narrow_float_internal.h"

#if defined(__F16C__) && defined(__AVX__)
#include <immintrin.h>
#else
#include "backends/xnnpack/narrow_float.h"
#endif

namespace etr {
namespace xnnpack {
namespace f16c {

#if defined(__F16C__) && defined(__AVX__)

void fp16_to_fp32(const uint16_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
}

void fp32_to_fp16(const float* src, uint16_t* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
}

void round_to_fp16(float* data, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(data + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_ps(data + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) data[i] = _cvtsh_ss(_cvtss_sh(data[i], _MM_FROUND_TO_NEAREST_INT));
}

#else  // built without F16C: never called, the scalar conversions stand in

void fp16_to_fp32(const uint16_t* src, float* dst, size_t n) { fp16_to_fp32_scalar(src, dst, n); }
void fp32_to_fp16(const float* src, uint16_t* dst, size_t n) { fp32_to_fp16_scalar(src, dst, n); }
void round_to_fp16(float* data, size_t n) { round_to_fp16_scalar(data, n); }

#endif

}  // namespace f16c
}  // namespace xnnpack
}  // namespace etr
