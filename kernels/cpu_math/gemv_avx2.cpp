// gemv.h with AVX2 + FMA. gemv_rows_avx2: four rows at a time, 8 columns
// per step (the last step masked), each row's 8 partial sums folded at the
// end; the epilogue runs over y once it is complete. gemv_panels_avx2: per
// panel of 16 rows, each input element broadcast and multiplied into the
// panel's 16 sums (two vectors), four elements in flight (8 accumulators,
// added pairwise at the end), then the bias and the epilogue in registers.
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

// Panels [p0, p1) of gemv_panels_avx2.
void panels(const float* packed, int64_t m, int64_t k, const float* x, const float* bias,
            const DepthwiseEpilogue& epilogue, float* y, int64_t p0, int64_t p1) {
  constexpr int64_t kR = kGemvPanelRows;
  const bool clamp = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  const __m256 lo = _mm256_set1_ps(epilogue.lo), hi = _mm256_set1_ps(epilogue.hi);
  for (int64_t p = p0; p < p1; ++p) {
    const float* a = packed + p * k * kR;
    __m256 s[4][2];
    for (int u = 0; u < 4; ++u) s[u][0] = s[u][1] = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 4 <= k; j += 4) {
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) {
        const __m256 xv = _mm256_broadcast_ss(x + j + u);
        const float* c = a + (j + u) * kR;
        s[u][0] = _mm256_fmadd_ps(_mm256_load_ps(c), xv, s[u][0]);
        s[u][1] = _mm256_fmadd_ps(_mm256_load_ps(c + 8), xv, s[u][1]);
      }
    }
    for (int u = 0; j < k; ++j, ++u) {
      const __m256 xv = _mm256_broadcast_ss(x + j);
      const float* c = a + j * kR;
      s[u][0] = _mm256_fmadd_ps(_mm256_load_ps(c), xv, s[u][0]);
      s[u][1] = _mm256_fmadd_ps(_mm256_load_ps(c + 8), xv, s[u][1]);
    }
    const int64_t r0 = p * kR;
    const int64_t rows = m - r0 < kR ? m - r0 : kR;
    alignas(32) float v[kR] = {};
    if (bias != nullptr) {
      for (int64_t r = 0; r < rows; ++r) v[r] = bias[r0 + r];
    }
    for (int h = 0; h < 2; ++h) {
      __m256 t = _mm256_add_ps(_mm256_add_ps(s[0][h], s[1][h]), _mm256_add_ps(s[2][h], s[3][h]));
      t = _mm256_add_ps(t, _mm256_load_ps(v + 8 * h));
      // max/min return their second operand when either is NaN: NaN stays.
      if (clamp) t = _mm256_min_ps(hi, _mm256_max_ps(lo, t));
      if (epilogue.silu) t = avx2_inl::silu8(t);
      _mm256_store_ps(v + 8 * h, t);
    }
    for (int64_t r = 0; r < rows; ++r) y[r0 + r] = v[r];
  }
}

// Below this many multiply-adds a panel product runs on the calling thread:
// splitting a 480 x 120 squeeze-excite layer (58K) gains nothing (2.5 us
// either way). Above, the product streams its weights, 4 bytes per
// multiply-add, mostly from L3 or DRAM, and two threads read them faster
// (Zen 4, medians): MobileNetV3's 240 x 960 layer 10.3 -> 6.6 us warm; its
// classifier layers (1024 x 576 and 1000 x 1024, under the GEMM's 1M
// threshold this used to share) 74 / 149 -> 53 / 91 us with cold weights,
// 30 / 54 -> 15 / 28 us warm.
constexpr int64_t kGemvParallelWork = int64_t{1} << 17;

}  // namespace

void gemv_panels_avx2(const float* packed, int64_t m, int64_t k, const float* x, const float* bias,
                      const DepthwiseEpilogue& epilogue, float* y, ThreadPool* pool) {
  const int64_t count = (m + kGemvPanelRows - 1) / kGemvPanelRows;
  if (pool == nullptr || pool->num_threads() < 2 || m * k < kGemvParallelWork || count < 2) {
    panels(packed, m, k, x, bias, epilogue, y, 0, count);
    return;
  }
  parallel_for(pool, static_cast<size_t>(count), 1, [&](size_t begin, size_t end) {
    panels(packed, m, k, x, bias, epilogue, y, static_cast<int64_t>(begin),
           static_cast<int64_t>(end));
  });
}

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

void gemv_panels_avx2(const float*, int64_t, int64_t, const float*, const float*,
                      const DepthwiseEpilogue&, float*, ThreadPool*) {}

}  // namespace opt
}  // namespace etr

#endif
