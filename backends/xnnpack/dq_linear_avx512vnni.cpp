// The AVX-512 VNNI kernel of dq_linear.h: qd8 x qb4w with the weights in
// qb4w_vnni_pack's layout (compiled with AVX-512 F/BW/VL/VNNI by
// etr_isa_sources; reached only where opt::cpu_features().avx512_vnni).
//
// Registers hold four outputs x four lanes: element 4 * o + j is lane j of
// output o of a group. Per 128 inputs, each of the group's four 64-byte
// weight vectors splits into its low nibbles (v & 0x0F) and high nibbles
// kept in place (v & 0xF0, i.e. 16 times the value), and vpdpbusd adds four
// nibble x activation products into each element, with the 16 reordered
// activations of a lane broadcast to all four outputs. The high sums are
// exact multiples of 16 and come back with an arithmetic shift. Per block,
// d = low + high / 16 - 8 * (the lane's activation sum) is the int8
// kernel's integer sum of each lane exactly (|d| < 2^31 for k <= 16384), and
// lane = fma(float(d), scale, lane) as in the official kernel; at the end
// (l0 + l1) + (l2 + l3) and the epilogue, as in dq_linear.cpp: bit-identical.
#include "backends/xnnpack/dq_linear_internal.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512VNNI__)
#include <immintrin.h>
#define ETR_DQ_VNNI 1
#endif

namespace etr {
namespace xnnpack {
namespace dq {

#if defined(ETR_DQ_VNNI)
namespace {

constexpr size_t G = kQb4wVnniGroup;
// All 16 lanes. (The maskz forms of the intrinsics below: GCC 12 warns
// about the plain ones' undefined pass-through operand.)
constexpr __mmask16 kAll = 0xFFFF;
// Bytes fetched ahead of the ones being read: the groups (scales, then
// weights) stream from memory once per call, one after the other, and
// dominate a decode step's time.
constexpr size_t kPrefetchBytes = 2048;

// The activations in the kernel's order (dq_linear.h): each 16 bytes' int16
// pairs reordered 0, 4, 1, 5, 2, 6, 3, 7. k is a multiple of 128.
void reorder_row(const int8_t* x, size_t k, int8_t* xr) {
  const __m512i order = _mm512_maskz_broadcast_i32x4(
      kAll, _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15));
  for (size_t i = 0; i < k; i += 64) {
    const __m512i v = _mm512_loadu_si512(x + i);
    _mm512_storeu_si512(xr + i, _mm512_maskz_shuffle_epi8(~__mmask64{0}, v, order));
  }
}

// 8 x the sum of each lane's activations per block: xs8[blk * 4 + j]. In
// the reordered row, bytes 4j .. 4j + 3 of every 16 are lane j.
void lane_sums(const int8_t* xr, size_t k, size_t bl, int32_t* xs8) {
  const __m512i ones = _mm512_set1_epi8(1);
  for (size_t b = 0; b < k / bl; ++b) {
    __m512i acc = _mm512_setzero_si512();
    for (size_t i = b * bl; i < (b + 1) * bl; i += 64)
      acc = _mm512_dpbusd_epi32(acc, ones, _mm512_loadu_si512(xr + i));
    alignas(64) int32_t part[16];  // element 4 * segment + j
    _mm512_store_si512(part, acc);
    for (size_t j = 0; j < 4; ++j)
      xs8[b * 4 + j] = 8 * (part[j] + part[4 + j] + part[8 + j] + part[12 + j]);
  }
}

inline __m512i broadcast16(const int8_t* p) {
  return _mm512_maskz_broadcast_i32x4(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// MR rows (reordered xr[r], lane sums xs8[r]) x output groups [g0, g1).
template <size_t MR>
void vnni_rows(const int8_t* const* xr, const int32_t* const* xs8, const Qd8Params* p,
               const DqLinearWeights& w, size_t g0, size_t g1, float* const* yrow) {
  const size_t k = w.k, nb = k / w.block, chunks = w.block / 128;
  const size_t scale_bytes = qb4w_vnni_scale_bytes(k, w.block);
  const size_t group_bytes = qb4w_vnni_group_bytes(k, w.block);
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  const __m512i high4 = _mm512_set1_epi8(static_cast<char>(0xF0));
  // Element 4 * o + j <- element o: a value per output spread over its lanes.
  const __m512i spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  for (size_t g = g0; g < g1; ++g) {
    const size_t o0 = g * G, nr = w.n - o0 < G ? w.n - o0 : G;
    const __mmask16 valid = static_cast<__mmask16>((1u << nr) - 1u);
    const __m512 kf =
        _mm512_maskz_permutexvar_ps(kAll, spread, _mm512_maskz_loadu_ps(valid, w.kfsum + o0));
    __m512 lane[MR];
    for (size_t r = 0; r < MR; ++r) {
      // Lane 0 of each output starts at kfsum * zero point, the others at 0.
      lane[r] =
          _mm512_maskz_mul_ps(0x1111, kf, _mm512_set1_ps(static_cast<float>(p[r].zero_point)));
    }
    const uint8_t* sg = w.w4 + g * group_bytes;  // bf16 scales [blocks, G]
    const uint8_t* wg = sg + scale_bytes;
    for (size_t blk = 0; blk < nb; ++blk) {
      __m512i lo[MR], hi[MR];
      for (size_t r = 0; r < MR; ++r) lo[r] = hi[r] = _mm512_setzero_si512();
      for (size_t c = blk * chunks; c < (blk + 1) * chunks; ++c) {
        const uint8_t* wc = wg + c * 256;
        for (size_t s = 0; s < 4; ++s) {
          _mm_prefetch(reinterpret_cast<const char*>(wc + 64 * s + kPrefetchBytes), _MM_HINT_NTA);
          const __m512i v = _mm512_load_si512(wc + 64 * s);
          const __m512i vl = _mm512_and_si512(v, low4);
          const __m512i vh = _mm512_and_si512(v, high4);
          for (size_t r = 0; r < MR; ++r) {
            const int8_t* x = xr[r] + c * 128 + 16 * s;
            lo[r] = _mm512_dpbusd_epi32(lo[r], vl, broadcast16(x));
            hi[r] = _mm512_dpbusd_epi32(hi[r], vh, broadcast16(x + 64));
          }
        }
      }
      // The group's 4 bf16 scales of this block, widened (exact) and
      // spread over each output's lanes.
      const __m128i s16 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(sg + blk * G * 2));
      const __m128 s4 = _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(s16), 16));
      const __m512 sc = _mm512_maskz_permutexvar_ps(kAll, spread, _mm512_zextps128_ps512(s4));
      for (size_t r = 0; r < MR; ++r) {
        const __m512i x8 = _mm512_maskz_broadcast_i32x4(
            kAll, _mm_loadu_si128(reinterpret_cast<const __m128i*>(xs8[r] + blk * 4)));
        const __m512i d =
            _mm512_sub_epi32(_mm512_add_epi32(lo[r], _mm512_maskz_srai_epi32(kAll, hi[r], 4)), x8);
        lane[r] = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(kAll, d), sc, lane[r]);
      }
    }
    for (size_t r = 0; r < MR; ++r) {
      // Element 4o: (l0 + l1) + (l2 + l3).
      const __m512 t = _mm512_add_ps(lane[r], _mm512_maskz_permute_ps(kAll, lane[r], 0xB1));
      const __m512 u = _mm512_add_ps(t, _mm512_maskz_permute_ps(kAll, t, 0x4E));
      alignas(64) float total[16];
      _mm512_store_ps(total, u);
      const float scale = p[r].scale;
      float* yr = yrow[r] + o0;
      for (size_t c = 0; c < nr; ++c) {
        const float v = std::fma(total[4 * c], scale, w.bias != nullptr ? w.bias[o0 + c] : 0.0f);
        yr[c] = xmin(xmax(v, w.output_min), w.output_max);
      }
    }
  }
}

// MR rows at a time: reordered once, then every output group.
template <size_t MR>
void vnni_group(const int8_t* q, const Qd8Params* params, size_t r0, const DqLinearWeights& w,
                size_t g0, size_t g1, float* y) {
  alignas(64) int8_t xbuf[MR][kQb4wVnniMaxInputs];
  int32_t sbuf[MR][kQb4wVnniMaxInputs / 128 * 4];
  const int8_t* xr[MR];
  const int32_t* xs8[MR];
  float* yrow[MR];
  for (size_t r = 0; r < MR; ++r) {
    reorder_row(q + (r0 + r) * w.k, w.k, xbuf[r]);
    lane_sums(xbuf[r], w.k, w.block, sbuf[r]);
    xr[r] = xbuf[r];
    xs8[r] = sbuf[r];
    yrow[r] = y + (r0 + r) * w.n;
  }
  vnni_rows<MR>(xr, xs8, params + r0, w, g0, g1, yrow);
}

}  // namespace

void qb4w_vnni_block(const int8_t* q, const Qd8Params* params, size_t rows,
                     const DqLinearWeights& w, size_t g0, size_t g1, float* y) {
  size_t r0 = 0;
  for (; r0 + 4 <= rows; r0 += 4) vnni_group<4>(q, params, r0, w, g0, g1, y);
  switch (rows - r0) {
    case 3: vnni_group<3>(q, params, r0, w, g0, g1, y); break;
    case 2: vnni_group<2>(q, params, r0, w, g0, g1, y); break;
    case 1: vnni_group<1>(q, params, r0, w, g0, g1, y); break;
    default: break;
  }
}

bool qb4w_vnni_built() { return true; }

#else  // built without AVX-512 VNNI: never selected (qb4w_vnni_supported).

void qb4w_vnni_block(const int8_t*, const Qd8Params*, size_t, const DqLinearWeights&, size_t,
                     size_t, float*) {}
bool qb4w_vnni_built() { return false; }

#endif

}  // namespace dq
}  // namespace xnnpack
}  // namespace etr
