// gemv.h with AVX2 + FMA: four rows at a time, 8 columns per step (the last
// step masked), each row's 8 partial sums folded at the end; the epilogue
// runs over y once it is complete.
#include "kernels/cpu_math/gemv.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "kernels/cpu_math/vec_math_avx2_inl.h"

namespace etr {
namespace opt {
namespace {

float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Rows [i, i + R) of W . x.
template <int R>
void dot_rows(const float* w, int64_t k, const float* x, __m256i tail, float* y) {
  __m256 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= k; j += 8) {
    const __m256 xv = _mm256_loadu_ps(x + j);
    for (int r = 0; r < R; ++r)
      acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(w + r * k + j), xv, acc[r]);
  }
  if (j < k) {
    const __m256 xv = _mm256_maskload_ps(x + j, tail);
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm256_fmadd_ps(_mm256_maskload_ps(w + r * k + j, tail), xv, acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) y[r] = hsum(acc[r]);
}

}  // namespace

void gemv_rows_avx2(const float* w, int64_t m, int64_t k, const float* x, const float* bias,
                    const DepthwiseEpilogue& epilogue, float* y) {
  const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(k % 8)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) dot_rows<4>(w + i * k, k, x, tail, y + i);
  for (; i < m; ++i) dot_rows<1>(w + i * k, k, x, tail, y + i);
  const bool clamp = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  const __m256 lo = _mm256_set1_ps(epilogue.lo), hi = _mm256_set1_ps(epilogue.hi);
  for (int64_t j = 0; j < m; j += 8) {
    const int64_t n = m - j < 8 ? m - j : 8;
    alignas(32) float v[8] = {};
    for (int64_t l = 0; l < n; ++l) v[l] = y[j + l] + (bias == nullptr ? 0.0f : bias[j + l]);
    __m256 s = _mm256_load_ps(v);
    // max/min return their second operand when either is NaN: NaN stays.
    if (clamp) s = _mm256_min_ps(hi, _mm256_max_ps(lo, s));
    if (epilogue.silu) s = avx2_inl::silu8(s);
    _mm256_store_ps(v, s);
    for (int64_t l = 0; l < n; ++l) y[j + l] = v[l];
  }
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never called (cpu_features gates it).

namespace etr {
namespace opt {

void gemv_rows_avx2(const float*, int64_t, int64_t, const float*, const float*,
                    const DepthwiseEpilogue&, float*) {}

}  // namespace opt
}  // namespace etr

#endif
