// AVX-512 VNNI kernel of native_qdwconv.h (compiled with AVX-512 F, BW, VL
// and VNNI by etr_isa_sources; reached only where qdw_vnni_usable()).
// Four taps of 32 channels are interleaved into bytes [t0 t1 t2 t3] per
// channel (two rounds of unpacks) and summed by vpdpbusd against the
// filter packed the same way: a quarter of the multiply instructions and
// half the shuffles of the AVX2 kernel per multiply-add.
#include "backends/xnnpack/native_qdwconv_internal.h"

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#include <immintrin.h>
#endif

namespace etr {
namespace xnnpack {
namespace qdw {

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
namespace {

inline __m256i load32(const int8_t* p, __m256i flip) {
  return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), flip);
}

// P output pixels, the whole blocks of 32 channels.
template <int P>
void pixels(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px) {
  const size_t blocks = w.channels / 32;
  const uint32_t groups = (w.taps + 3) / 4;
  const __m256 hi = _mm256_set1_ps(static_cast<float>(w.output_qmax - w.output_zero_point));
  const __m256 lo = _mm256_set1_ps(static_cast<float>(w.output_qmin - w.output_zero_point));
  const __m256i zp = _mm256_set1_epi32(w.output_zero_point);
  // x xor 0x80 is x + 128 as an unsigned byte (bias_vnni takes the 128 back).
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (size_t b = 0; b < blocks; ++b) {
    const size_t c = b * 32;
    __m256i acc[P][4];
    for (int v = 0; v < 4; ++v) {
      const __m256i bias =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.bias_vnni + c + 8 * v));
      for (int q = 0; q < P; ++q) acc[q][v] = bias;
    }
    const int8_t* wp = w.wvnni + b * groups * 128;
    for (uint32_t g = 0; g < groups; ++g, wp += 128) {
      __m256i wv[4];
      for (int v = 0; v < 4; ++v)
        wv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + 32 * v));
      for (int q = 0; q < P; ++q) {
        const __m256i t0 = load32(taps[q][4 * g] + c, flip);
        const __m256i t1 = load32(taps[q][4 * g + 1] + c, flip);
        const __m256i t2 = load32(taps[q][4 * g + 2] + c, flip);
        const __m256i t3 = load32(taps[q][4 * g + 3] + c, flip);
        const __m256i ab_lo = _mm256_unpacklo_epi8(t0, t1);
        const __m256i ab_hi = _mm256_unpackhi_epi8(t0, t1);
        const __m256i cd_lo = _mm256_unpacklo_epi8(t2, t3);
        const __m256i cd_hi = _mm256_unpackhi_epi8(t2, t3);
        acc[q][0] = _mm256_dpbusd_epi32(acc[q][0], _mm256_unpacklo_epi16(ab_lo, cd_lo), wv[0]);
        acc[q][1] = _mm256_dpbusd_epi32(acc[q][1], _mm256_unpackhi_epi16(ab_lo, cd_lo), wv[1]);
        acc[q][2] = _mm256_dpbusd_epi32(acc[q][2], _mm256_unpacklo_epi16(ab_hi, cd_hi), wv[2]);
        acc[q][3] = _mm256_dpbusd_epi32(acc[q][3], _mm256_unpackhi_epi16(ab_hi, cd_hi), wv[3]);
      }
    }
    for (int q = 0; q < P; ++q) {
      __m256i r[4];
      for (int v = 0; v < 4; ++v) {
        __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[q][v]),
                                 _mm256_loadu_ps(w.requant_vnni + c + 8 * v));
        f = _mm256_max_ps(_mm256_min_ps(f, hi), lo);
        r[v] = _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
      }
      // Lane L of the packs holds channels 16 L .. 16 L + 15 in order.
      const __m256i out =
          _mm256_packs_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y_px[q] + c), out);
    }
  }
}

}  // namespace

size_t pixels_vnni(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px, int count) {
  if (count == 4) {
    pixels<4>(w, taps, y_px);
  } else {
    for (int q = 0; q < count; ++q) pixels<1>(w, taps + q, y_px + q);
  }
  return w.channels / 32 * 32;
}
bool vnni_compiled() { return true; }

#else

size_t pixels_vnni(const QDwConvWeights&, const TapPtrs*, int8_t* const*, int) { return 0; }
bool vnni_compiled() { return false; }

#endif

}  // namespace qdw
}  // namespace xnnpack
}  // namespace etr
