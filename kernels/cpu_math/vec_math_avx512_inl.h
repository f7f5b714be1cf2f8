// Inline AVX-512F building blocks shared by the *_avx512.cpp files: exp of
// non-positive floats and SiLU on 16 lanes. Include only from translation
// units compiled with AVX-512F and FMA, inside their guard.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace etr {
namespace opt {
namespace avx512_inl {

// exp(z) for z <= 0 and x * sigmoid(x) on 16 lanes: the operations of
// avx2_inl::exp_nonpositive8 / silu8 (vec_math_avx2_inl.h) lane for lane, so
// the SiLU a kernel applies with them equals opt::unary's bit for bit.
inline __m512 exp_nonpositive16(__m512 z) {
  const __m512 magic = _mm512_set1_ps(0x1.8000FEp23f);  // 1.5 * 2^23 + 127
  __m512 n = _mm512_fmadd_ps(z, _mm512_set1_ps(0x1.715476p0f), magic);
  const __m512 s = _mm512_castsi512_ps(
      _mm512_maskz_slli_epi32(static_cast<__mmask16>(0xFFFF), _mm512_castps_si512(n), 23));
  n = _mm512_sub_ps(n, magic);
  __m512 t = _mm512_fmadd_ps(n, _mm512_set1_ps(-0x1.62E400p-1f), z);
  t = _mm512_fmadd_ps(n, _mm512_set1_ps(-0x1.7F7D1Cp-20f), t);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0x1.0F9F9Cp-7f), t, _mm512_set1_ps(0x1.573A1Ap-5f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0x1.555A80p-3f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0x1.FFFDC6p-2f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0x1.FFFFF6p-1f));
  t = _mm512_mul_ps(t, s);
  const __m512 e = _mm512_fmadd_ps(t, p, s);
  // Below ln(FLT_MIN) the exponent trick wraps: flush to 0 (NaN compares false).
  const __mmask16 tiny = _mm512_cmp_ps_mask(z, _mm512_set1_ps(-0x1.5D589Ep+6f), _CMP_LT_OQ);
  return _mm512_maskz_mov_ps(static_cast<__mmask16>(~tiny), e);
}

inline __m512 silu16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512i bits = _mm512_castps_si512(x);
  const __m512 e =
      exp_nonpositive16(_mm512_castsi512_ps(_mm512_or_si512(bits, _mm512_set1_epi32(INT32_MIN))));
  // Lanes whose sign bit is set take e (silu8's blendv).
  const __mmask16 neg = _mm512_cmplt_epi32_mask(bits, _mm512_setzero_si512());
  const __m512 num = _mm512_mul_ps(x, _mm512_mask_blend_ps(neg, one, e));
  return _mm512_div_ps(num, _mm512_add_ps(one, e));
}

}  // namespace avx512_inl
}  // namespace opt
}  // namespace etr
