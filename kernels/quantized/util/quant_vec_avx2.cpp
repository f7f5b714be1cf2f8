// AVX2 bodies of quant_vec.h: eight floats per vector, the same operations
// in the same order as the plain loops (multiply, round half to even with
// vroundps in the default rounding mode, add, clamp, convert), so every
// element matches them bit for bit. A ragged end goes through the same vector
// code on a padded copy.
#include <cstring>
#include <type_traits>

#include "kernels/quantized/util/quant_vec.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace etr {
namespace qvec {
namespace avx2 {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Eight quantized values as int32: quantize_value's formula with its
// clamp_keep_nan (vmaxps/vminps return their second operand when either is
// NaN, so a NaN passes both) and NaN then 0, as convert<int8/uint8> gives.
inline __m256i quantize8(__m256 x, __m256 inv, __m256 zp, __m256 lo, __m256 hi, bool round_first) {
  __m256 v = _mm256_mul_ps(x, inv);
  v = round_first ? _mm256_add_ps(_mm256_round_ps(v, kRound), zp)
                  : _mm256_round_ps(_mm256_add_ps(v, zp), kRound);
  v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
  v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
  return _mm256_cvtps_epi32(v);
}

// 32 values (each within Q's range) packed to bytes in order.
template <typename Q>
inline __m256i pack32(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_packs_epi32(a, b);  // lanes: a0-3 b0-3 | a4-7 b4-7
  const __m256i cd = _mm256_packs_epi32(c, d);
  const __m256i bytes =
      std::is_same<Q, uint8_t>::value ? _mm256_packus_epi16(ab, cd) : _mm256_packs_epi16(ab, cd);
  // bytes' dwords hold a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7.
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

template <typename Q>
void quantize_block(const float* x, Q* q, size_t n, __m256 inv, __m256 zp, __m256 lo, __m256 hi,
                    bool round_first) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i a = quantize8(_mm256_loadu_ps(x + i), inv, zp, lo, hi, round_first);
    const __m256i b = quantize8(_mm256_loadu_ps(x + i + 8), inv, zp, lo, hi, round_first);
    const __m256i c = quantize8(_mm256_loadu_ps(x + i + 16), inv, zp, lo, hi, round_first);
    const __m256i d = quantize8(_mm256_loadu_ps(x + i + 24), inv, zp, lo, hi, round_first);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), pack32<Q>(a, b, c, d));
  }
  if (i < n) {
    alignas(32) float xs[32] = {};
    alignas(32) Q qs[32];
    std::memcpy(xs, x + i, (n - i) * sizeof(float));
    const __m256i a = quantize8(_mm256_load_ps(xs), inv, zp, lo, hi, round_first);
    const __m256i b = quantize8(_mm256_load_ps(xs + 8), inv, zp, lo, hi, round_first);
    const __m256i c = quantize8(_mm256_load_ps(xs + 16), inv, zp, lo, hi, round_first);
    const __m256i d = quantize8(_mm256_load_ps(xs + 24), inv, zp, lo, hi, round_first);
    _mm256_store_si256(reinterpret_cast<__m256i*>(qs), pack32<Q>(a, b, c, d));
    std::memcpy(q + i, qs, (n - i) * sizeof(Q));
  }
}

// Eight bytes widened to int32 (sign- or zero-extended).
template <typename Q>
inline __m256i widen8(const Q* q) {
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q));
  return std::is_same<Q, uint8_t>::value ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
}

template <typename Q>
void dequantize_block(const Q* q, float* y, size_t n, __m256 zp, __m256 s) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_cvtepi32_ps(widen8(q + i));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_sub_ps(v, zp), s));
  }
  if (i < n) {
    alignas(8) Q qs[8] = {};
    alignas(32) float ys[8];
    std::memcpy(qs, q + i, (n - i) * sizeof(Q));
    const __m256 v = _mm256_cvtepi32_ps(widen8(qs));
    _mm256_store_ps(ys, _mm256_mul_ps(_mm256_sub_ps(v, zp), s));
    std::memcpy(y + i, ys, (n - i) * sizeof(float));
  }
}

inline float hmin(__m256 v) {
  __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_min_ps(m, _mm_movehl_ps(m, m));
  m = _mm_min_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

}  // namespace

template <typename Q>
void quantize(const float* x, Q* q, size_t n, float inv, float zp, float lo, float hi,
              bool round_first) {
  quantize_block<Q>(x, q, n, _mm256_set1_ps(inv), _mm256_set1_ps(zp), _mm256_set1_ps(lo),
                    _mm256_set1_ps(hi), round_first);
}

template <typename Q>
void dequantize(const Q* q, float* y, size_t n, float zp, float scale) {
  dequantize_block<Q>(q, y, n, _mm256_set1_ps(zp), _mm256_set1_ps(scale));
}

// Min and max of eight lanes each, with a flag for any NaN; a row with a
// NaN is searched again for its first one. (A zero result's sign may differ
// from the plain loop's, which keeps the first of equal values.)
void min_max(const float* x, size_t n, float* lo, float* hi) {
  size_t i = 0;
  float mn = x[0];
  float mx = x[0];
  if (n >= 8) {
    __m256 vmn = _mm256_loadu_ps(x);
    __m256 vmx = vmn;
    __m256 nan = _mm256_cmp_ps(vmn, vmn, _CMP_UNORD_Q);
    for (i = 8; i + 8 <= n; i += 8) {
      const __m256 v = _mm256_loadu_ps(x + i);
      vmn = _mm256_min_ps(vmn, v);
      vmx = _mm256_max_ps(vmx, v);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
    mn = hmin(vmn);
    mx = hmax(vmx);
    if (_mm256_movemask_ps(nan) != 0) i = n + 1;  // a NaN: search below
  }
  for (; i < n; ++i) {
    const float v = x[i];
    if (v != v) {
      i = n + 1;
      break;
    }
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  if (i == n + 1) {
    for (size_t k = 0; k < n; ++k) {
      if (x[k] != x[k]) {
        mn = mx = x[k];
        break;
      }
    }
  }
  *lo = mn;
  *hi = mx;
}

#else  // not built with AVX2: never called (quant_vec.cpp asks the CPU first)

template <typename Q>
void quantize(const float*, Q*, size_t, float, float, float, float, bool) {}
template <typename Q>
void dequantize(const Q*, float*, size_t, float, float) {}
void min_max(const float*, size_t, float*, float*) {}

#endif

template void quantize<int8_t>(const float*, int8_t*, size_t, float, float, float, float, bool);
template void quantize<uint8_t>(const float*, uint8_t*, size_t, float, float, float, float, bool);
template void dequantize<int8_t>(const int8_t*, float*, size_t, float, float);
template void dequantize<uint8_t>(const uint8_t*, float*, size_t, float, float);

}  // namespace avx2
}  // namespace qvec
}  // namespace etr
