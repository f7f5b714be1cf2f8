// AVX2+FMA bodies of vec_math.h: 8 floats per step, tails through masked
// loads and stores. exp: Cody-Waite reduction by ln 2 and a degree-6
// polynomial; erf: a rational function of z^2 (see erf8).
#include "kernels/cpu_math/vec_math_impl.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

#include <cmath>
#include <limits>

#include "kernels/cpu_math/vec_math_avx2_inl.h"

namespace etr {
namespace opt {
namespace avx2 {
namespace {

using avx2_inl::exp8;
using avx2_inl::exp_nonpositive8;
using avx2_inl::sigmoid8;

// Lanes [0, r) set.
__m256i tail_mask(size_t r) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(r)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Hides a product from the compiler so that it is not fused with the next
// addition into an FMA: the portable kernels round the product first.
inline __m256 rounded(__m256 v) {
  __asm__("" : "+x"(v));
  return v;
}

// y = f(x) over n floats.
template <typename F>
inline void map(const float* x, float* y, size_t n, F f) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, f(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i m = tail_mask(n - i);
    _mm256_maskstore_ps(y + i, m, f(_mm256_maskload_ps(x + i, m)));
  }
}

// erf(z) in float: z * P(z^2) / Q(z^2) on |z| <= 4 (z clamped there, where
// erf rounds to +-1), the result clamped to [-1, 1]. P and Q are degree 5 in
// z^2, a weighted least-squares fit of erf(z) / z (bench/fit_erf.py): within
// 3.5e-7 of erf everywhere, 4e-7 relative below |z| = 1. One division and
// eleven FMAs; NaN stays NaN (min/max return their second operand for NaN).
inline __m256 erf8(__m256 z) {
  const __m256 c = _mm256_set1_ps(4.0f);
  const __m256 zc = _mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), c), _mm256_min_ps(c, z));
  const __m256 t = _mm256_mul_ps(zc, zc);
  __m256 p = _mm256_set1_ps(1.974872475329903e-06f);
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.00028803967870771885f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.0040035066194832325f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.05346704646945f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.19624553620815277f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.128378987312317f));
  __m256 q = _mm256_set1_ps(3.748121889657341e-05f);
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.0012163289356976748f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.015444139018654823f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.11647502332925797f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.5072492361068726f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(1.0f));
  const __m256 e = _mm256_div_ps(_mm256_mul_ps(zc, p), q);
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), one), _mm256_min_ps(one, e));
}

inline __m256 gelu_erf8(__m256 x) {
  const __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(static_cast<float>(0.7071067811865476)));
  const __m256 h = _mm256_mul_ps(_mm256_set1_ps(0.5f), x);
  return _mm256_mul_ps(h, _mm256_add_ps(_mm256_set1_ps(1.0f), erf8(z)));
}

// 0.5 x (1 + tanh(u)) == x * sigmoid(2u).
inline __m256 gelu_tanh8(__m256 x) {
  const __m256 cube =
      _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.044715f), x), x), x);
  const __m256 inner =
      _mm256_mul_ps(_mm256_set1_ps(static_cast<float>(0.7978845608028654)), _mm256_add_ps(x, cube));
  const __m256 e = exp8(_mm256_mul_ps(_mm256_set1_ps(-2.0f), inner));
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

// y = f(a, b) with a and/or b broadcast (stride 0).
template <typename F>
inline void zip(const float* a, size_t sa, const float* b, size_t sb, float* y, size_t n, F f) {
  if (n == 0) return;  // a and b may then be empty
  if (sa == 1 && sb == 1) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(y + i, f(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
    }
    if (i < n) {
      const __m256i m = tail_mask(n - i);
      _mm256_maskstore_ps(y + i, m, f(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m)));
    }
  } else if (sa == 1) {
    const __m256 bv = _mm256_set1_ps(b[0]);
    map(a, y, n, [&](__m256 v) { return f(v, bv); });
  } else if (sb == 1) {
    const __m256 av = _mm256_set1_ps(a[0]);
    map(b, y, n, [&](__m256 v) { return f(av, v); });
  } else {
    const __m256 v = f(_mm256_set1_ps(a[0]), _mm256_set1_ps(b[0]));
    const float s = _mm256_cvtss_f32(v);
    for (size_t i = 0; i < n; ++i) y[i] = s;
  }
}

float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

double hsum(__m256d v) {
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
  return _mm_cvtsd_f64(s);
}

}  // namespace

void unary(const UnaryParams& p, const float* x, float* y, size_t n) {
  switch (p.kind) {
    case UnaryKind::kRelu: {
      // max returns its second operand for NaN and for (0, -0): x itself.
      const __m256 zero = _mm256_setzero_ps();
      return map(x, y, n, [zero](__m256 v) { return _mm256_max_ps(zero, v); });
    }
    case UnaryKind::kClamp: {
      const __m256 lo = _mm256_set1_ps(p.lo), hi = _mm256_set1_ps(p.hi);
      return map(x, y, n, [lo, hi](__m256 v) { return _mm256_min_ps(hi, _mm256_max_ps(lo, v)); });
    }
    case UnaryKind::kSigmoid: return map(x, y, n, sigmoid8);
    case UnaryKind::kGeluErf: return map(x, y, n, gelu_erf8);
    case UnaryKind::kGeluTanh: return map(x, y, n, gelu_tanh8);
    case UnaryKind::kSilu: return map(x, y, n, avx2_inl::silu8);
    case UnaryKind::kHardswish: {
      const __m256 shift = _mm256_set1_ps(p.shift), d = _mm256_set1_ps(p.divisor);
      const __m256 lo = _mm256_set1_ps(p.lo), hi = _mm256_set1_ps(p.hi);
      const __m256 lo2 = _mm256_set1_ps(p.lo2), hi2 = _mm256_set1_ps(p.hi2);
      return map(x, y, n, [=](__m256 v) {
        // min/max return their second operand when either is NaN: NaN stays.
        __m256 t = _mm256_add_ps(v, shift);
        t = _mm256_min_ps(hi, _mm256_max_ps(lo, t));
        t = _mm256_min_ps(hi2, _mm256_max_ps(lo2, t));
        return _mm256_div_ps(rounded(_mm256_mul_ps(v, t)), d);
      });
    }
  }
}

void binary(const BinaryParams& p, const float* a, size_t sa, const float* b, size_t sb, float* y,
            size_t n) {
  const __m256 alpha = _mm256_set1_ps(p.alpha);
  switch (p.kind) {
    case BinaryKind::kAdd:
      if (p.use_alpha) {
        return zip(a, sa, b, sb, y, n, [alpha](__m256 u, __m256 v) {
          return _mm256_add_ps(u, rounded(_mm256_mul_ps(alpha, v)));
        });
      }
      return zip(a, sa, b, sb, y, n, [](__m256 u, __m256 v) { return _mm256_add_ps(u, v); });
    case BinaryKind::kSub:
      if (p.use_alpha) {
        return zip(a, sa, b, sb, y, n, [alpha](__m256 u, __m256 v) {
          return _mm256_sub_ps(u, rounded(_mm256_mul_ps(alpha, v)));
        });
      }
      return zip(a, sa, b, sb, y, n, [](__m256 u, __m256 v) { return _mm256_sub_ps(u, v); });
    case BinaryKind::kMul:
      return zip(a, sa, b, sb, y, n, [](__m256 u, __m256 v) { return _mm256_mul_ps(u, v); });
    case BinaryKind::kDiv:
      return zip(a, sa, b, sb, y, n, [](__m256 u, __m256 v) { return _mm256_div_ps(u, v); });
  }
}

void select(const uint8_t* c, size_t sc, const float* a, size_t sa, const float* b, size_t sb,
            float* y, size_t n) {
  if (n == 0) return;
  if (sc == 0) {
    // One condition for the whole run: a copy (or fill) of one side.
    const float* src = c[0] != 0 ? a : b;
    const size_t s = c[0] != 0 ? sa : sb;
    for (size_t i = 0; i < n; ++i) y[i] = src[i * s];
    return;
  }
  const __m256 av = _mm256_set1_ps(a[0]), bv = _mm256_set1_ps(b[0]);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(c + i));
    const __m256i wide = _mm256_cvtepu8_epi32(bytes);
    const __m256 is_zero = _mm256_castsi256_ps(_mm256_cmpeq_epi32(wide, _mm256_setzero_si256()));
    const __m256 x = sa == 1 ? _mm256_loadu_ps(a + i) : av;
    const __m256 z = sb == 1 ? _mm256_loadu_ps(b + i) : bv;
    _mm256_storeu_ps(y + i, _mm256_blendv_ps(x, z, is_zero));
  }
  for (; i < n; ++i) y[i] = c[i] != 0 ? a[i * sa] : b[i * sb];
}

float max(const float* x, size_t n) {
  __m256 acc = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    acc = _mm256_max_ps(acc, v);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  if (_mm256_movemask_ps(nan) != 0) return std::numeric_limits<float>::quiet_NaN();
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  float m = lanes[0];
  for (int k = 1; k < 8; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    m = x[i] > m ? x[i] : m;
  }
  return m;
}

float exp_shift_sum(const float* x, float shift, float* y, size_t n) {
  const __m256 sv = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sv));
    _mm256_storeu_ps(y + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (i < n) {
    const __m256i m = tail_mask(n - i);
    const __m256 e = exp8(_mm256_sub_ps(_mm256_maskload_ps(x + i, m), sv));
    _mm256_maskstore_ps(y + i, m, e);
    acc = _mm256_add_ps(acc, _mm256_and_ps(e, _mm256_castsi256_ps(m)));
  }
  return hsum(acc);
}

float exp_shift_sum_nonpositive(const float* x, float shift, float* y, size_t n) {
  const __m256 sv = _mm256_set1_ps(shift);
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 e0 = exp_nonpositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sv));
    const __m256 e1 = exp_nonpositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), sv));
    _mm256_storeu_ps(y + i, e0);
    _mm256_storeu_ps(y + i + 8, e1);
    acc0 = _mm256_add_ps(acc0, e0);
    acc1 = _mm256_add_ps(acc1, e1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_nonpositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sv));
    _mm256_storeu_ps(y + i, e);
    acc0 = _mm256_add_ps(acc0, e);
  }
  if (i < n) {
    const __m256i m = tail_mask(n - i);
    const __m256 e = exp_nonpositive8(_mm256_sub_ps(_mm256_maskload_ps(x + i, m), sv));
    _mm256_maskstore_ps(y + i, m, e);
    acc1 = _mm256_add_ps(acc1, _mm256_and_ps(e, _mm256_castsi256_ps(m)));
  }
  return hsum(_mm256_add_ps(acc0, acc1));
}

void affine(const float* x, float scale, float shift, float* y, size_t n) {
  const __m256 a = _mm256_set1_ps(scale), b = _mm256_set1_ps(shift);
  map(x, y, n, [a, b](__m256 v) { return _mm256_add_ps(rounded(_mm256_mul_ps(v, a)), b); });
}

void normalize(const float* x, double mean, double rstd, const float* w, const float* b, float* y,
               size_t n) {
  const __m256d mu = _mm256_set1_pd(mean), rs = _mm256_set1_pd(rstd);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d v = _mm256_mul_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i)), mu), rs);
    if (w != nullptr) v = _mm256_mul_pd(v, _mm256_cvtps_pd(_mm_loadu_ps(w + i)));
    if (b != nullptr) v = _mm256_add_pd(v, _mm256_cvtps_pd(_mm_loadu_ps(b + i)));
    _mm_storeu_ps(y + i, _mm256_cvtpd_ps(v));
  }
  for (; i < n; ++i) {
    double v = (static_cast<double>(x[i]) - mean) * rstd;
    if (w != nullptr) v *= static_cast<double>(w[i]);
    if (b != nullptr) v += static_cast<double>(b[i]);
    y[i] = static_cast<float>(v);
  }
}

void normalize_f32(const float* x, float mean, float rstd, const float* w, const float* b, float* y,
                   size_t n) {
  const __m256 mu = _mm256_set1_ps(mean), rs = _mm256_set1_ps(rstd);
  const __m256 one = _mm256_set1_ps(1.0f);
  auto step = [&](__m256 v, __m256 wv, __m256 bv) {
    return _mm256_fmadd_ps(_mm256_mul_ps(_mm256_sub_ps(v, mu), rs), wv, bv);
  };
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 wv = w != nullptr ? _mm256_loadu_ps(w + i) : one;
    const __m256 bv = b != nullptr ? _mm256_loadu_ps(b + i) : _mm256_setzero_ps();
    _mm256_storeu_ps(y + i, step(_mm256_loadu_ps(x + i), wv, bv));
  }
  if (i < n) {
    const __m256i m = tail_mask(n - i);
    const __m256 wv = w != nullptr ? _mm256_maskload_ps(w + i, m) : one;
    const __m256 bv = b != nullptr ? _mm256_maskload_ps(b + i, m) : _mm256_setzero_ps();
    _mm256_maskstore_ps(y + i, m, step(_mm256_maskload_ps(x + i, m), wv, bv));
  }
}

double sum_f64(const float* x, size_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
  __m256d a2 = _mm256_setzero_pd(), a3 = _mm256_setzero_pd();
  size_t i = 0;
  // Four accumulators: the additions' latency, not their count, bounds a
  // row of a few hundred elements.
  for (; i + 16 <= n; i += 16) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 u = _mm256_loadu_ps(x + i + 8);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm256_castps256_ps128(u)));
    a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm256_extractf128_ps(u, 1)));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  double s = hsum(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

void row_means(const float* x, size_t rows, size_t n, double divisor, float* y) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    // Rows r .. r + 4: two accumulators each (8 independent chains), columns
    // 8 at a time, the last n % 8 added one by one.
    const float* q[4] = {x + r * n, x + (r + 1) * n, x + (r + 2) * n, x + (r + 3) * n};
    __m256d lo[4], hi[4];
    for (int j = 0; j < 4; ++j) lo[j] = hi[j] = _mm256_setzero_pd();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const __m256 v = _mm256_loadu_ps(q[j] + i);
        lo[j] = _mm256_add_pd(lo[j], _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        hi[j] = _mm256_add_pd(hi[j], _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
      }
    }
    for (int j = 0; j < 4; ++j) {
      double s = hsum(_mm256_add_pd(lo[j], hi[j]));
      for (size_t t = i; t < n; ++t) s += static_cast<double>(q[j][t]);
      y[r + j] = static_cast<float>(s / divisor);
    }
  }
  for (; r < rows; ++r) y[r] = static_cast<float>(sum_f64(x + r * n, n) / divisor);
}

double sum_sq_dev_f64(const float* x, double mean, size_t n) {
  const __m256d mu = _mm256_set1_pd(mean);
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
  __m256d a2 = _mm256_setzero_pd(), a3 = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 u = _mm256_loadu_ps(x + i + 8);
    const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), mu);
    const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), mu);
    const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(u)), mu);
    const __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(u, 1)), mu);
    a0 = _mm256_fmadd_pd(d0, d0, a0);
    a1 = _mm256_fmadd_pd(d1, d1, a1);
    a2 = _mm256_fmadd_pd(d2, d2, a2);
    a3 = _mm256_fmadd_pd(d3, d3, a3);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), mu);
    const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), mu);
    a0 = _mm256_fmadd_pd(d0, d0, a0);
    a1 = _mm256_fmadd_pd(d1, d1, a1);
  }
  double s = hsum(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    s += d * d;
  }
  return s;
}

}  // namespace avx2
}  // namespace opt
}  // namespace etr

#else  // built without AVX2: never called (cpu_features() gates it); forwards.

namespace etr {
namespace opt {
namespace avx2 {

void unary(const UnaryParams& p, const float* x, float* y, size_t n) { generic::unary(p, x, y, n); }
void binary(const BinaryParams& p, const float* a, size_t sa, const float* b, size_t sb, float* y,
            size_t n) {
  generic::binary(p, a, sa, b, sb, y, n);
}
void select(const uint8_t* c, size_t sc, const float* a, size_t sa, const float* b, size_t sb,
            float* y, size_t n) {
  generic::select(c, sc, a, sa, b, sb, y, n);
}
float max(const float* x, size_t n) { return generic::max(x, n); }
float exp_shift_sum(const float* x, float shift, float* y, size_t n) {
  return generic::exp_shift_sum(x, shift, y, n);
}
float exp_shift_sum_nonpositive(const float* x, float shift, float* y, size_t n) {
  return generic::exp_shift_sum_nonpositive(x, shift, y, n);
}
void affine(const float* x, float scale, float shift, float* y, size_t n) {
  generic::affine(x, scale, shift, y, n);
}
void normalize(const float* x, double mean, double rstd, const float* w, const float* b, float* y,
               size_t n) {
  generic::normalize(x, mean, rstd, w, b, y, n);
}
void normalize_f32(const float* x, float mean, float rstd, const float* w, const float* b, float* y,
                   size_t n) {
  generic::normalize_f32(x, mean, rstd, w, b, y, n);
}
double sum_f64(const float* x, size_t n) { return generic::sum_f64(x, n); }
double sum_sq_dev_f64(const float* x, double mean, size_t n) {
  return generic::sum_sq_dev_f64(x, mean, n);
}
void row_means(const float* x, size_t rows, size_t n, double divisor, float* y) {
  generic::row_means(x, rows, n, divisor, y);
}

}  // namespace avx2
}  // namespace opt
}  // namespace etr

#endif
