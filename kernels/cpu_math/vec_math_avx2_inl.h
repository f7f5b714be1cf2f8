// Inline AVX2+FMA building blocks shared by the *_avx2.cpp files: exp and
// sigmoid of 8 floats, an 8 x 8 transpose. Include only from translation units compiled with
// AVX2 and FMA (the _avx2.cpp files), inside their __AVX2__ && __FMA__ guard.
#pragma once

#include <immintrin.h>

#include <limits>

namespace etr {
namespace opt {
namespace avx2_inl {

// exp(x) within ~1 ulp; +inf above the float overflow threshold, 0 below
// the smallest normal result, NaN for NaN. Cody-Waite reduction by ln 2 and
// a degree-6 polynomial.
inline __m256 exp8(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.72283935546875f);
  const __m256 lo = _mm256_set1_ps(-87.33654022216797f);
  // min/max return their second operand when either is NaN: x's NaN survives.
  __m256 xc = _mm256_max_ps(lo, _mm256_min_ps(hi, x));
  __m256 fx = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  fx = _mm256_min_ps(fx, _mm256_set1_ps(127.0f));
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 r2 = _mm256_mul_ps(r, r);
  const __m256 y = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  __m256 out = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  out = _mm256_blendv_ps(out, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                         _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(out, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
}

// 1 / (1 + exp(-x)).
inline __m256 sigmoid8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), x));
  return _mm256_div_ps(one, _mm256_add_ps(one, e));
}

// exp(z) for z <= 0 (callers pass -|x|): 0 below the smallest normal result,
// NaN for NaN, within ~2 ulp otherwise. Never overflows, so it needs no
// clamping: the exponent comes from a rounding constant (2^n built by a
// shift of the rounded z * log2(e)), the rest from a degree-5 polynomial of
// the remainder z - n ln 2 (ln 2 split in two).
inline __m256 exp_nonpositive8(__m256 z) {
  const __m256 magic = _mm256_set1_ps(0x1.8000FEp23f);  // 1.5 * 2^23 + 127
  __m256 n = _mm256_fmadd_ps(z, _mm256_set1_ps(0x1.715476p0f), magic);
  const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n), 23));
  n = _mm256_sub_ps(n, magic);
  __m256 t = _mm256_fmadd_ps(n, _mm256_set1_ps(-0x1.62E400p-1f), z);
  t = _mm256_fmadd_ps(n, _mm256_set1_ps(-0x1.7F7D1Cp-20f), t);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0x1.0F9F9Cp-7f), t, _mm256_set1_ps(0x1.573A1Ap-5f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.555A80p-3f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.FFFDC6p-2f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.FFFFF6p-1f));
  t = _mm256_mul_ps(t, s);
  const __m256 e = _mm256_fmadd_ps(t, p, s);
  // Below ln(FLT_MIN) the exponent trick wraps: flush to 0 (NaN compares false).
  return _mm256_andnot_ps(_mm256_cmp_ps(z, _mm256_set1_ps(-0x1.5D589Ep+6f), _CMP_LT_OQ), e);
}

// x * sigmoid(x) (opt::UnaryKind::kSilu) as x / (1 + e) for x >= 0 and
// x e / (1 + e) below, e = exp(-|x|): within ~3e-7 relative of the exact
// value, NaN for NaN, +inf for +inf, NaN for -inf (as x * sigmoid(x)).
inline __m256 silu8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = exp_nonpositive8(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
  // blendv takes e where x's sign bit is set.
  const __m256 num = _mm256_mul_ps(x, _mm256_blendv_ps(one, e, x));
  return _mm256_div_ps(num, _mm256_add_ps(one, e));
}

// Transposes the 8 x 8 block in r: element k of r[i] becomes element i of
// r[k].
inline void transpose8(__m256* r) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

}  // namespace avx2_inl
}  // namespace opt
}  // namespace etr
