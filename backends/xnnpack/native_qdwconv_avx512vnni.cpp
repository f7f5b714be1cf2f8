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

// The column kernel (row_columns_vnni): output pixels per tile, and the
// input columns a tile reads at most (stride_w <= 2, kernel_w <= 8).
constexpr size_t kColTile = 32;
constexpr size_t kMaxTileCols = (kColTile - 1) * 2 + 8;

// The four interleaved vectors of input column ix, channels c .. c + 31:
// slot t of each channel's group holds vertical tap t (t < kernel_h; the
// other slots, and columns or rows outside the image, read pad_row).
inline void build_column(const DwConvShape& s, const QDwConvWeights& w, const int8_t* const* row_of,
                         long ix, size_t c, __m256i flip, __m256i* dst) {
  const bool inside = ix >= 0 && ix < static_cast<long>(s.in_w);
  const int8_t* p[4];
  for (uint32_t t = 0; t < 4; ++t) {
    p[t] = t < w.kernel_h && inside && row_of[t] != nullptr
               ? row_of[t] + static_cast<size_t>(ix) * s.channels + c
               : w.pad_row + c;
  }
  const __m256i t0 = load32(p[0], flip);
  const __m256i t1 = load32(p[1], flip);
  const __m256i t2 = load32(p[2], flip);
  const __m256i t3 = load32(p[3], flip);
  const __m256i ab_lo = _mm256_unpacklo_epi8(t0, t1);
  const __m256i ab_hi = _mm256_unpackhi_epi8(t0, t1);
  const __m256i cd_lo = _mm256_unpacklo_epi8(t2, t3);
  const __m256i cd_hi = _mm256_unpackhi_epi8(t2, t3);
  _mm256_store_si256(dst + 0, _mm256_unpacklo_epi16(ab_lo, cd_lo));
  _mm256_store_si256(dst + 1, _mm256_unpackhi_epi16(ab_lo, cd_lo));
  _mm256_store_si256(dst + 2, _mm256_unpacklo_epi16(ab_hi, cd_hi));
  _mm256_store_si256(dst + 3, _mm256_unpackhi_epi16(ab_hi, cd_hi));
}

// P output pixels of one block of 32 channels from the tile's columns: pixel
// q sums columns j0 + q * stride .. + kernel_w - 1 against the filter's
// columns (wk), then requantizes as the pixel kernel does.
template <int P>
inline void from_columns(const __m256i (*cols)[4], size_t j0, uint32_t stride, uint32_t kw,
                         const int8_t* wk, const QDwConvWeights& w, size_t c, __m256 hi, __m256 lo,
                         __m256i zp, int8_t* y, size_t pixel_stride) {
  __m256i acc[P][4];
  for (int v = 0; v < 4; ++v) {
    const __m256i bias =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.bias_vnni + c + 8 * v));
    for (int q = 0; q < P; ++q) acc[q][v] = bias;
  }
  for (uint32_t kx = 0; kx < kw; ++kx) {
    __m256i wv[4];
    for (int v = 0; v < 4; ++v)
      wv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wk + kx * 128 + 32 * v));
    for (int q = 0; q < P; ++q) {
      const __m256i* col = cols[j0 + static_cast<size_t>(q) * stride + kx];
      for (int v = 0; v < 4; ++v)
        acc[q][v] = _mm256_dpbusd_epi32(acc[q][v], _mm256_load_si256(col + v), wv[v]);
    }
  }
  for (int q = 0; q < P; ++q) {
    __m256i r[4];
    for (int v = 0; v < 4; ++v) {
      __m256 f =
          _mm256_mul_ps(_mm256_cvtepi32_ps(acc[q][v]), _mm256_loadu_ps(w.requant_vnni + c + 8 * v));
      f = _mm256_max_ps(_mm256_min_ps(f, hi), lo);
      r[v] = _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
    }
    const __m256i out =
        _mm256_packs_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + static_cast<size_t>(q) * pixel_stride + c),
                        out);
  }
}

}  // namespace

size_t row_columns_vnni(const DwConvShape& s, const QDwConvWeights& w, const int8_t* const* row_of,
                        int8_t* y_row) {
  const size_t C = s.channels, blocks = C / 32;
  const uint32_t kw = w.kernel_w, sw = s.stride_w;
  const __m256 hi = _mm256_set1_ps(static_cast<float>(w.output_qmax - w.output_zero_point));
  const __m256 lo = _mm256_set1_ps(static_cast<float>(w.output_qmin - w.output_zero_point));
  const __m256i zp = _mm256_set1_epi32(w.output_zero_point);
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  alignas(32) __m256i cols[kMaxTileCols][4];
  for (size_t b = 0; b < blocks; ++b) {
    const size_t c = b * 32;
    const int8_t* wk = w.wcol + b * kw * 128;
    for (size_t ox0 = 0; ox0 < s.out_w; ox0 += kColTile) {
      const size_t n = s.out_w - ox0 < kColTile ? s.out_w - ox0 : kColTile;
      const long ix0 = static_cast<long>(ox0 * sw) - static_cast<long>(s.pad_left);
      const size_t ncols = (n - 1) * sw + kw;
      for (size_t j = 0; j < ncols; ++j)
        build_column(s, w, row_of, ix0 + static_cast<long>(j), c, flip, cols[j]);
      int8_t* y = y_row + ox0 * C;
      size_t q = 0;
      for (; q + 4 <= n; q += 4)
        from_columns<4>(cols, q * sw, sw, kw, wk, w, c, hi, lo, zp, y + q * C, C);
      for (; q < n; ++q) from_columns<1>(cols, q * sw, sw, kw, wk, w, c, hi, lo, zp, y + q * C, C);
    }
  }
  return blocks * 32;
}

size_t pixels_vnni(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px, int count) {
  // A row's last 1-3 pixels in one call as well (the filter loaded once for them).
  switch (count) {
    case 4: pixels<4>(w, taps, y_px); break;
    case 3: pixels<3>(w, taps, y_px); break;
    case 2: pixels<2>(w, taps, y_px); break;
    default:
      for (int q = 0; q < count; ++q) pixels<1>(w, taps + q, y_px + q);
  }
  return w.channels / 32 * 32;
}
bool vnni_compiled() { return true; }

#else

size_t pixels_vnni(const QDwConvWeights&, const TapPtrs*, int8_t* const*, int) { return 0; }
size_t row_columns_vnni(const DwConvShape&, const QDwConvWeights&, const int8_t* const*, int8_t*) {
  return 0;
}
bool vnni_compiled() { return false; }

#endif

}  // namespace qdw
}  // namespace xnnpack
}  // namespace etr
