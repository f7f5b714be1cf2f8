// The 2x2 stride-2 average pooling row kernel (pool_avg.h) with AVX2: four
// outputs per step, their eight input columns of each row split into even
// and odd lanes by one permute, widened to double and summed in the scalar
// order. Built with AVX2 by etr_isa_sources (cmake/helpers.cmake).
#include "kernels/cpu_math/pool_avg.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

namespace etr {
namespace opt {

int64_t avg_pool_2x2_row_avx2(const float* r0, const float* r1, int64_t ow, double div,
                              float* out) {
  const __m256i evens_odds = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256d d = _mm256_set1_pd(div);
  int64_t x = 0;
  for (; x + 4 <= ow; x += 4) {
    // Lanes 0-3: columns 2x, 2x + 2, ...; lanes 4-7: 2x + 1, 2x + 3, ...
    const __m256 a = _mm256_permutevar8x32_ps(_mm256_loadu_ps(r0 + 2 * x), evens_odds);
    const __m256 b = _mm256_permutevar8x32_ps(_mm256_loadu_ps(r1 + 2 * x), evens_odds);
    __m256d sum = _mm256_cvtps_pd(_mm256_castps256_ps128(a));
    sum = _mm256_add_pd(sum, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
    sum = _mm256_add_pd(sum, _mm256_cvtps_pd(_mm256_castps256_ps128(b)));
    sum = _mm256_add_pd(sum, _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)));
    _mm_storeu_ps(out + x, _mm256_cvtpd_ps(_mm256_div_pd(sum, d)));
  }
  return x;
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (cpu_features); nothing done.

namespace etr {
namespace opt {

int64_t avg_pool_2x2_row_avx2(const float*, const float*, int64_t, double, float*) { return 0; }

}  // namespace opt
}  // namespace etr

#endif
