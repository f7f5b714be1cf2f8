#include "kernels/cpu_math/pool_max.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

namespace etr {
namespace opt {
namespace {

// in[0], in[2], ..., in[14] (reads in[0..14] only).
__m256 load_even(const float* in) {
  const __m256i first7 = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, -1, 0);
  const __m256 a = _mm256_loadu_ps(in);
  const __m256 b = _mm256_maskload_ps(in + 8, first7);
  const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
}

template <int kStride>
int64_t row(const float* in, int64_t iw, int64_t h0, int64_t x0, int64_t count, int64_t kh,
            int64_t kw, int64_t pw, int64_t dh, int64_t dw, float* out, int64_t* idx) {
  const __m256i lanes = _mm256_setr_epi32(0, kStride, 2 * kStride, 3 * kStride, 4 * kStride,
                                          5 * kStride, 6 * kStride, 7 * kStride);
  int64_t done = 0;
  for (; done + 8 <= count; done += 8) {
    const int64_t x = x0 + done;
    __m256 best = _mm256_setzero_ps();
    __m256i best_idx = _mm256_setzero_si256();
    for (int64_t ki = 0; ki < kh; ++ki) {
      for (int64_t kj = 0; kj < kw; ++kj) {
        const int64_t pos = (h0 + ki * dh) * iw + x * kStride - pw + kj * dw;
        const __m256 v = kStride == 1 ? _mm256_loadu_ps(in + pos) : load_even(in + pos);
        const __m256i i = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(pos)), lanes);
        if (ki == 0 && kj == 0) {
          best = v;
          best_idx = i;
          continue;
        }
        const __m256 take =
            _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        best = _mm256_blendv_ps(best, v, take);
        best_idx = _mm256_castps_si256(
            _mm256_blendv_ps(_mm256_castsi256_ps(best_idx), _mm256_castsi256_ps(i), take));
      }
    }
    _mm256_storeu_ps(out + done, best);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + done),
                        _mm256_cvtepi32_epi64(_mm256_castsi256_si128(best_idx)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + done + 4),
                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(best_idx, 1)));
  }
  return done;
}

}  // namespace

int64_t max_pool_row_avx2(const float* in, int64_t iw, int64_t h0, int64_t x0, int64_t count,
                          int64_t kh, int64_t kw, int64_t sw, int64_t pw, int64_t dh, int64_t dw,
                          float* out, int64_t* idx) {
  if (sw == 1) return row<1>(in, iw, h0, x0, count, kh, kw, pw, dh, dw, out, idx);
  if (sw == 2) return row<2>(in, iw, h0, x0, count, kh, kw, pw, dh, dw, out, idx);
  return 0;
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (cpu_features); nothing done.

namespace etr {
namespace opt {

int64_t max_pool_row_avx2(const float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t, int64_t, int64_t, float*, int64_t*) {
  return 0;
}

}  // namespace opt
}  // namespace etr

#endif
