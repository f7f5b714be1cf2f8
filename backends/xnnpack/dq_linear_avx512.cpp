// AVX-512 VNNI kernel of dq_linear.h (vpdpbusd: four u8 x s8 products summed
// into each int32 lane). The file is built with AVX-512F (etr_isa_sources);
// the kernel asks for BW and VNNI itself and runs only where the CPU reports
// all three (dq_vnni_usable).
//
// Weights are packed once at init in blocks of 16 outputs: for every group
// of 4 inputs, 16 x 4 int8 (output j's 4 weights at bytes 4j..4j+3), zeros
// past n and k. A row's 4 activations are broadcast to the 16 lanes with
// their sign bit flipped (q + 128 as u8), so each lane sums (q + 128) * w and
// the true dot product is that less 128 * ksum. Everything is int32 and
// exact (k <= kDqVnniMaxInputs), so the results equal the other kernels' bit
// for bit; the epilogue is theirs (dq_linear_internal.h) on 16 lanes.
#include <cstring>
#include <type_traits>

#include "backends/xnnpack/dq_linear_internal.h"

#if defined(__AVX512F__)
#include <immintrin.h>
// GCC 12 reports the _mm512_undefined_*() placeholders inside its own
// AVX-512 intrinsics as uninitialized once they are inlined into a function
// with a target attribute (or, inlined differently, as maybe
// uninitialized); no value of ours is involved.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace etr {
namespace xnnpack {
namespace dq {

#if defined(__AVX512F__)
namespace {

#define ETR_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// acc + the four u8 x s8 products of each lane (vpdpbusd). Inline asm ties
// the sum to acc's register: with the intrinsic, GCC 12 copies every
// accumulator of a tile to another register (and some to the stack) on
// each step of the inner loop. (On Zen 4, broadcasting the activations
// from memory, or as vpdpbusd's embedded broadcast, is slower than the
// broadcast from a general register below.)
ETR_VNNI_TARGET inline __m512i dpbusd(__m512i acc, __m512i u8, __m512i s8) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
  return acc;
}

// Writes 16 outputs [o0, o0 + 16) of rows r0.. from their int32 sums acc
// (the lanes past n are not stored).
template <size_t MR>
ETR_VNNI_TARGET inline void vnni_store(const __m512i* acc, const Qd8Params* params, size_t r0,
                                       const DqLinearWeights& w, size_t o0, float* y) {
  const size_t valid = w.n - o0 < 16 ? w.n - o0 : 16;
  const __mmask16 m = static_cast<__mmask16>((1u << valid) - 1u);
  const __m512i ks = _mm512_maskz_loadu_epi32(m, w.ksum + o0);
  const __m512 ws = _mm512_maskz_loadu_ps(m, w.scales + o0);
  const __m512 bias =
      w.bias != nullptr ? _mm512_maskz_loadu_ps(m, w.bias + o0) : _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(w.output_min), hi = _mm512_set1_ps(w.output_max);
  const __m512i ks128 = _mm512_slli_epi32(ks, 7);
  for (size_t r = 0; r < MR; ++r) {
    const Qd8Params p = params[r0 + r];
    // (dot - zp * ksum) as epilogue() takes it; dot = acc - 128 * ksum.
    const __m512i dot = _mm512_sub_epi32(acc[r], ks128);
    const __m512i t =
        _mm512_sub_epi32(dot, _mm512_mullo_epi32(_mm512_set1_epi32(p.zero_point), ks));
    const __m512 f = _mm512_cvtepi32_ps(t);
    __m512 v = _mm512_fmadd_ps(_mm512_mul_ps(f, _mm512_set1_ps(p.scale)), ws, bias);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);  // xmax(v, lo) then xmin(., hi)
    _mm512_mask_storeu_ps(y + (r0 + r) * w.n + o0, m, v);
  }
}

// A row's 4 activations from byte 4g on (only `count` of them when fewer
// remain), sign bits flipped: q + 128 as four u8, in every lane.
ETR_VNNI_TARGET inline __m512i vnni_bcast(const int8_t* a, size_t count) {
  uint32_t v = 0;
  if (count >= 4) {
    std::memcpy(&v, a, 4);
  } else {
    // Byte by byte: a memcpy of a variable count became a copy loop, and
    // the tile's sums went through memory around it (the 27-input stem).
    const uint8_t* b = reinterpret_cast<const uint8_t*>(a);
    v = b[0];
    if (count > 1) v |= static_cast<uint32_t>(b[1]) << 8;
    if (count > 2) v |= static_cast<uint32_t>(b[2]) << 16;
  }
  return _mm512_set1_epi32(static_cast<int>(v ^ 0x80808080u));
}

// One group of 4 inputs (from input i; `count` of them) for MR rows x NB
// blocks (the blocks' packed weights `stride` bytes apart).
template <size_t MR, size_t NB>
ETR_VNNI_TARGET inline void vnni_step(const int8_t* const* a, size_t i, size_t count,
                                      const int8_t* wp, size_t stride, __m512i (*acc)[MR]) {
  __m512i wv[NB];
  for (size_t b = 0; b < NB; ++b) wv[b] = _mm512_loadu_si512(wp + b * stride);
  for (size_t r = 0; r < MR; ++r) {
    const __m512i x = vnni_bcast(a[r] + i, count);
    for (size_t b = 0; b < NB; ++b) acc[b][r] = dpbusd(acc[b][r], x, wv[b]);
  }
}

// The int32 start of a static layer's sums for outputs [o0, o0 + 16): the
// kernel adds sum (x + 128) * w, so starting from bias - (128 + input_zp) *
// ksum leaves bias + sum (x - input_zp) * w.
ETR_VNNI_TARGET inline __m512i qs8_start(const DqLinearWeights& w, size_t o0) {
  const size_t valid = w.n - o0 < 16 ? w.n - o0 : 16;
  const __mmask16 m = static_cast<__mmask16>((1u << valid) - 1u);
  const __m512i ks = _mm512_maskz_loadu_epi32(m, w.ksum + o0);
  const __m512i bias =
      w.qbias != nullptr ? _mm512_maskz_loadu_epi32(m, w.qbias + o0) : _mm512_setzero_si512();
  return _mm512_sub_epi32(bias,
                          _mm512_mullo_epi32(_mm512_set1_epi32(128 + w.input_zero_point), ks));
}

// 16 int8 outputs [o0, o0 + 16) of rows r0.. of a static layer (qs8_linear)
// from their requantized sums acc. XNNPACK bounds the scaled value above by
// qmax - zp in float, rounds (vcvtps2dq: half to even), adds zp and bounds
// below by qmin; as qmin - zp is an integer, bounding below in float before
// rounding gives the same codes, and keeps every value inside int32.
template <size_t MR>
ETR_VNNI_TARGET inline void vnni_store_qs8(const __m512i* acc, size_t r0, const DqLinearWeights& w,
                                           size_t o0, int8_t* y) {
  const size_t valid = w.n - o0 < 16 ? w.n - o0 : 16;
  const __mmask16 m = static_cast<__mmask16>((1u << valid) - 1u);
  const __m512 rq = _mm512_maskz_loadu_ps(m, w.requant + o0);
  const __m512i zp = _mm512_set1_epi32(w.output_zero_point);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(w.output_qmin - w.output_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(w.output_qmax - w.output_zero_point));
#pragma GCC unroll 8
  for (size_t r = 0; r < MR; ++r) {
    const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[r]), rq);
    const __m512i v = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(f, lo), hi));
    // Narrowed in a register, then stored: on Zen 4 vpmovdb with a memory
    // destination costs several times the register form.
    const __m128i b = _mm512_maskz_cvtepi32_epi8(0xFFFF, _mm512_add_epi32(v, zp));
    int8_t* dst = y + (r0 + r) * w.n + o0;
    if (valid == 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), b);
    } else {
      _mm_mask_storeu_epi8(dst, m, b);
    }
  }
}

// The same for 16 * NB outputs [o0, o0 + 16 * NB) (all
// inside n; NB 2 to 4), with one store per row. Only the upper bound is applied in
// float; the rounded codes (at most qmax - zp) are narrowed with saturating
// packs, the zero point added with int16 saturation and the lower bound
// applied last on the int8 codes: as the bounds are integers and every step
// is monotone and exact inside int8, this gives XNNPACK's codes. The packs'
// lane interleave is undone with one permute.
template <size_t MR, size_t NB>
ETR_VNNI_TARGET inline void vnni_store_qs8_packed(__m512i (*acc)[MR], size_t r0,
                                                  const DqLinearWeights& w, size_t o0, int8_t* y) {
  static_assert(NB >= 2 && NB <= 4, "two to four blocks");
  const __m512 hi = _mm512_set1_ps(static_cast<float>(w.output_qmax - w.output_zero_point));
  // First every sum becomes its code in place, a block's scales at a time,
  // so that the tile's sums stay in registers (with all the scales loaded
  // at once GCC kept every sum on the stack).
#pragma GCC unroll 4
  for (size_t b = 0; b < NB; ++b) {
    const __m512 rq = _mm512_loadu_ps(w.requant + o0 + 16 * b);
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; ++r) {
      const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[b][r]), rq);
      // Bounded above in float (vcvtps2dq turns every value out of int32,
      // NaN included, into INT32_MIN); with hi first a NaN passes through
      // and ends at qmin as XNNPACK's max-then-min makes it.
      acc[b][r] = _mm512_cvtps_epi32(_mm512_min_ps(hi, f));
    }
  }
  const __m512i zp = _mm512_set1_epi16(static_cast<int16_t>(w.output_zero_point));
  const __m512i qmin = _mm512_set1_epi8(static_cast<char>(w.output_qmin));
  // Dword 4j + b of the packed vector holds outputs 4j .. 4j + 3 of block b
  // (for two blocks, dwords 4j + 2 and 4j + 3 repeat blocks 0 and 1).
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
#pragma GCC unroll 8
  for (size_t r = 0; r < MR; ++r) {
    int8_t* dst = y + (r0 + r) * w.n + o0;
    const __m512i ab = _mm512_adds_epi16(_mm512_packs_epi32(acc[0][r], acc[1][r]), zp);
    if constexpr (NB == 4) {
      const __m512i cd = _mm512_adds_epi16(_mm512_packs_epi32(acc[2][r], acc[3][r]), zp);
      const __m512i codes = _mm512_max_epi8(_mm512_packs_epi16(ab, cd), qmin);
      _mm512_storeu_si512(dst, _mm512_permutexvar_epi32(order, codes));
    } else if constexpr (NB == 3) {  // dwords 4j + 3 repeat block 2
      const __m512i cc = _mm512_adds_epi16(_mm512_packs_epi32(acc[2][r], acc[2][r]), zp);
      const __m512i codes = _mm512_max_epi8(_mm512_packs_epi16(ab, cc), qmin);
      _mm512_mask_storeu_epi8(dst, (__mmask64{1} << 48) - 1,
                              _mm512_permutexvar_epi32(order, codes));
    } else {
      const __m512i codes =
          _mm512_permutexvar_epi32(order, _mm512_max_epi8(_mm512_packs_epi16(ab, ab), qmin));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm512_castsi512_si256(codes));
    }
  }
}

// Rows [r0, r0 + MR) x NB blocks of 16 outputs from block ob on (NB 1 to 4);
// Out float (a dynamically quantized layer) or int8_t (a static one).
// Tail: k is not a multiple of 4 (a separate instantiation: with the tail
// step in the same function GCC kept the tile's sums on the stack around
// it, which cost small-k layers about a sixth of their time).
template <size_t MR, size_t NB, bool Tail, typename Out>
ETR_VNNI_TARGET void vnni_tile(const int8_t* q, const Qd8Params* params, size_t r0,
                               const DqLinearWeights& w, size_t ob, Out* y) {
  const size_t k = w.k, groups = k / 4, k4 = (k + 3) / 4;
  const int8_t* wp = w.wvnni + ob * k4 * 64;
  const int8_t* a[MR];
  for (size_t r = 0; r < MR; ++r) a[r] = q + (r0 + r) * k;
  __m512i acc[NB][MR];
  for (size_t b = 0; b < NB; ++b) {
    const __m512i start =
        std::is_same<Out, float>::value ? _mm512_setzero_si512() : qs8_start(w, (ob + b) * 16);
    for (size_t r = 0; r < MR; ++r) acc[b][r] = start;
  }
  // The last 1..3 inputs first (the packed weights past k are 0): after
  // the loop, the step kept the tile's sums on the stack.
  if constexpr (Tail)
    vnni_step<MR, NB>(a, 4 * groups, k - 4 * groups, wp + groups * 64, k4 * 64, acc);
  for (size_t g = 0; g < groups; ++g) vnni_step<MR, NB>(a, 4 * g, 4, wp + g * 64, k4 * 64, acc);
  if constexpr (!std::is_same<Out, float>::value && NB >= 2) {
    if (w.n - ob * 16 >= 16 * NB) {
      vnni_store_qs8_packed<MR, NB>(acc, r0, w, ob * 16, y);
      return;
    }
  }
#pragma GCC unroll 4
  for (size_t b = 0; b < NB; ++b) {
    if constexpr (std::is_same<Out, float>::value) {
      vnni_store<MR>(acc[b], params, r0, w, (ob + b) * 16, y);
    } else {
      vnni_store_qs8<MR>(acc[b], r0, w, (ob + b) * 16, y);
    }
  }
}

// Rows [r0, r1) x NB blocks: tiles of 8 rows for one or two blocks, of 6
// rows for three or four (24 accumulators, the weight vectors and one
// broadcast fit the 32 registers; each broadcast row then feeds four
// vpdpbusd instead of two).
template <size_t NB, bool Tail, typename Out>
void vnni_rows_nbt(const int8_t* q, const Qd8Params* params, size_t r0, size_t r1,
                   const DqLinearWeights& w, size_t ob, Out* y) {
  size_t r = r0;
  if constexpr (NB > 2) {
    for (; r + 6 <= r1; r += 6) vnni_tile<6, NB, Tail>(q, params, r, w, ob, y);
  }
  for (; r + 8 <= r1; r += 8) vnni_tile<8, NB, Tail>(q, params, r, w, ob, y);
  switch (r1 - r) {
    case 7: vnni_tile<7, NB, Tail>(q, params, r, w, ob, y); break;
    case 6: vnni_tile<6, NB, Tail>(q, params, r, w, ob, y); break;
    case 5: vnni_tile<5, NB, Tail>(q, params, r, w, ob, y); break;
    case 4: vnni_tile<4, NB, Tail>(q, params, r, w, ob, y); break;
    case 3: vnni_tile<3, NB, Tail>(q, params, r, w, ob, y); break;
    case 2: vnni_tile<2, NB, Tail>(q, params, r, w, ob, y); break;
    case 1: vnni_tile<1, NB, Tail>(q, params, r, w, ob, y); break;
    default: break;
  }
}

// The same, with the tiles for k's remainder mod 4.
template <size_t NB, typename Out>
void vnni_rows_nb(const int8_t* q, const Qd8Params* params, size_t r0, size_t r1,
                  const DqLinearWeights& w, size_t ob, Out* y) {
  if (w.k % 4 != 0) {
    vnni_rows_nbt<NB, true>(q, params, r0, r1, w, ob, y);
  } else {
    vnni_rows_nbt<NB, false>(q, params, r0, r1, w, ob, y);
  }
}

}  // namespace

bool vnni_built() { return true; }

void vnni_rows(const int8_t* q, const Qd8Params* params, size_t r0, size_t r1,
               const DqLinearWeights& w, size_t ob, size_t nb, float* y) {
  if (nb == 2) {
    vnni_rows_nb<2>(q, params, r0, r1, w, ob, y);
  } else {
    vnni_rows_nb<1>(q, params, r0, r1, w, ob, y);
  }
}

void vnni_rows_qs8(const int8_t* x, size_t r0, size_t r1, const DqLinearWeights& w, size_t ob,
                   size_t nb, int8_t* y) {
  switch (nb) {
    case 4: vnni_rows_nb<4>(x, nullptr, r0, r1, w, ob, y); break;
    case 3: vnni_rows_nb<3>(x, nullptr, r0, r1, w, ob, y); break;
    case 2: vnni_rows_nb<2>(x, nullptr, r0, r1, w, ob, y); break;
    default: vnni_rows_nb<1>(x, nullptr, r0, r1, w, ob, y); break;
  }
}

#else  // built without AVX-512: never called (dq_vnni_usable is false)

bool vnni_built() { return false; }
void vnni_rows(const int8_t*, const Qd8Params*, size_t, size_t, const DqLinearWeights&, size_t,
               size_t, float*) {}
void vnni_rows_qs8(const int8_t*, size_t, size_t, const DqLinearWeights&, size_t, size_t, int8_t*) {
}

#endif

}  // namespace dq
}  // namespace xnnpack
}  // namespace etr
