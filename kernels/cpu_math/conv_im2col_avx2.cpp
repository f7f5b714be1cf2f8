// The stride-2 row copy of im2col (conv_im2col.h) with AVX2: eight outputs
// per step from two loads, the even lanes picked by a shuffle and a lane
// permute. Built with AVX2 by etr_isa_sources (cmake/helpers.cmake);
// conv_im2col.cpp calls it only where cpu_features().avx2_fma.
#include "kernels/cpu_math/conv_im2col.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

namespace etr {
namespace opt {

void copy_stride2_avx2(const float* src, int64_t n, float* dst) {
  // The last lane of the second load is never used, so only the first seven
  // floats of it are read: src[0 .. 2n - 2] and nothing past it.
  const __m256i first7 = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, -1, 0);
  int64_t x = 0;
  for (; x + 8 <= n; x += 8) {
    const float* s = src + 2 * x;
    const __m256 a = _mm256_loadu_ps(s);
    const __m256 b = _mm256_maskload_ps(s + 8, first7);
    // [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 | b0 b2 b4 b6]
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    _mm256_storeu_ps(dst + x, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
  }
  for (; x < n; ++x) dst[x] = src[2 * x];
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (cpu_features); the plain loop.

namespace etr {
namespace opt {

void copy_stride2_avx2(const float* src, int64_t n, float* dst) {
  for (int64_t x = 0; x < n; ++x) dst[x] = src[2 * x];
}

}  // namespace opt
}  // namespace etr

#endif
