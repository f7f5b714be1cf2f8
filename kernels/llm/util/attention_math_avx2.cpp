// AVX2 + FMA bodies of attention_math.h: four 8-lane accumulators for the
// dot product, 8 floats per step for y += a * x, scalar tails.
#include "kernels/llm/util/attention_math.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

namespace etr {
namespace llm {
namespace avx2 {

float dot(const float* a, const float* b, int64_t n) {
  __m256 s0 = _mm256_setzero_ps();
  __m256 s1 = _mm256_setzero_ps();
  __m256 s2 = _mm256_setzero_ps();
  __m256 s3 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  }
  const __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  // Horizontal sum of the eight lanes.
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  float sum = _mm_cvtss_f32(h);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void axpy(float a, const float* x, float* y, int64_t n) {
  const __m256 av = _mm256_set1_ps(a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

namespace {

// dot's reduction of its four partial sums.
inline float reduce(__m256 s0, __m256 s1, __m256 s2, __m256 s3) {
  const __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

// Cache rows fetched ahead of the ones being read: a decode step reads
// each head's rows at the cache's row stride (all heads' values of a
// position sit together), a pattern the hardware prefetchers pick up late.
constexpr int64_t kRowsAhead = 8;

inline void prefetch(const float* p) {
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
}

}  // namespace

void dot_rows(const float* q, const float* k, int64_t stride, int64_t count, int64_t n,
              float* out) {
  if (n % 8 != 0) {
    for (int64_t j = 0; j < count; ++j) out[j] = dot(q, k + j * stride, n);
    return;
  }
  int64_t j = 0;
  // Two rows at a time, each with dot's own four sums and order.
  for (; j + 2 <= count; j += 2) {
    const float* b = k + j * stride;
    const float* c = b + stride;
    if (j + kRowsAhead + 2 <= count) {
      for (int64_t i = 0; i < n; i += 16) {
        prefetch(b + kRowsAhead * stride + i);
        prefetch(c + kRowsAhead * stride + i);
      }
    }
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    __m256 t0 = s0, t1 = s0, t2 = s0, t3 = s0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const __m256 q0 = _mm256_loadu_ps(q + i), q1 = _mm256_loadu_ps(q + i + 8);
      const __m256 q2 = _mm256_loadu_ps(q + i + 16), q3 = _mm256_loadu_ps(q + i + 24);
      s0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(b + i), s0);
      t0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(c + i), t0);
      s1 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(b + i + 8), s1);
      t1 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(c + i + 8), t1);
      s2 = _mm256_fmadd_ps(q2, _mm256_loadu_ps(b + i + 16), s2);
      t2 = _mm256_fmadd_ps(q2, _mm256_loadu_ps(c + i + 16), t2);
      s3 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(b + i + 24), s3);
      t3 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(c + i + 24), t3);
    }
    for (; i + 8 <= n; i += 8) {
      const __m256 q0 = _mm256_loadu_ps(q + i);
      s0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(b + i), s0);
      t0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(c + i), t0);
    }
    out[j] = reduce(s0, s1, s2, s3);
    out[j + 1] = reduce(t0, t1, t2, t3);
  }
  for (; j < count; ++j) out[j] = dot(q, k + j * stride, n);
}

void axpy_rows(const float* p, const float* x, int64_t stride, int64_t count, float* y, int64_t n) {
  if (n % 8 != 0) {
    for (int64_t j = 0; j < count; ++j) axpy(p[j], x + j * stride, y, n);
    return;
  }
  int64_t i = 0;
  // 32 outputs at a time stay in registers over every row.
  for (; i + 32 <= n; i += 32) {
    __m256 y0 = _mm256_loadu_ps(y + i), y1 = _mm256_loadu_ps(y + i + 8);
    __m256 y2 = _mm256_loadu_ps(y + i + 16), y3 = _mm256_loadu_ps(y + i + 24);
    for (int64_t j = 0; j < count; ++j) {
      const __m256 a = _mm256_set1_ps(p[j]);
      const float* r = x + j * stride + i;
      if (j + kRowsAhead < count) {  // this pass's 32 columns of a row ahead
        prefetch(r + kRowsAhead * stride);
        prefetch(r + kRowsAhead * stride + 16);
      }
      y0 = _mm256_fmadd_ps(a, _mm256_loadu_ps(r), y0);
      y1 = _mm256_fmadd_ps(a, _mm256_loadu_ps(r + 8), y1);
      y2 = _mm256_fmadd_ps(a, _mm256_loadu_ps(r + 16), y2);
      y3 = _mm256_fmadd_ps(a, _mm256_loadu_ps(r + 24), y3);
    }
    _mm256_storeu_ps(y + i, y0);
    _mm256_storeu_ps(y + i + 8, y1);
    _mm256_storeu_ps(y + i + 16, y2);
    _mm256_storeu_ps(y + i + 24, y3);
  }
  for (; i < n; i += 8) {
    __m256 y0 = _mm256_loadu_ps(y + i);
    for (int64_t j = 0; j < count; ++j)
      y0 = _mm256_fmadd_ps(_mm256_set1_ps(p[j]), _mm256_loadu_ps(x + j * stride + i), y0);
    _mm256_storeu_ps(y + i, y0);
  }
}

}  // namespace avx2
}  // namespace llm
}  // namespace etr

#else

namespace etr {
namespace llm {
namespace avx2 {

float dot(const float* a, const float* b, int64_t n) { return generic::dot(a, b, n); }
void axpy(float a, const float* x, float* y, int64_t n) { generic::axpy(a, x, y, n); }
void dot_rows(const float* q, const float* k, int64_t stride, int64_t count, int64_t n,
              float* out) {
  generic::dot_rows(q, k, stride, count, n, out);
}
void axpy_rows(const float* p, const float* x, int64_t stride, int64_t count, float* y, int64_t n) {
  generic::axpy_rows(p, x, stride, count, y, n);
}

}  // namespace avx2
}  // namespace llm
}  // namespace etr

#endif
