// The AVX-512 micro-kernel of the GEMM engine, on the same 6x16 panels as the
// AVX2 one: a row of the tile is one zmm. Six accumulators alone cannot hide
// the FMA latency, so even and odd k accumulate separately (12 chains) and
// are summed before the epilogue; N-edge columns use a lane mask, and an
// edge of at most 8 columns runs on ymm (tile_rows_narrow). B is a
// packed panel or, read in place, full 16-column rows MicroTile::ldb apart. Built with
// AVX-512F by etr_isa_sources (cmake/helpers.cmake); gemm.cpp calls it only
// where cpu_features().avx512f.
#include <cstdint>

#include "kernels/cpu_math/gemm_internal.h"

#if defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>

#include "kernels/cpu_math/vec_math_avx512_inl.h"
#define ETR_GEMM_AVX512 1
#endif

namespace etr {
namespace opt {
namespace internal {

#if defined(ETR_GEMM_AVX512)
namespace {

using avx512_inl::silu16;

inline void finish_row(const MicroTile& t, int r, __m512 v, __mmask16 m) {
  float* c = t.c + r * t.ldc;
  if (t.alpha != 1.0f) v = _mm512_mul_ps(v, _mm512_set1_ps(t.alpha));
  if (!t.first) {
    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, c));
  } else if (t.beta != 0.0f) {
    v = _mm512_fmadd_ps(_mm512_set1_ps(t.beta), _mm512_maskz_loadu_ps(m, c), v);
  }
  if (t.last) {
    if (t.row_bias != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(t.row_bias[r]));
    if (t.col_bias != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, t.col_bias));
    if (t.clamp) {
      // max/min return their second operand when either is NaN: NaN stays.
      // (The maskz forms: GCC 12 warns about the plain ones' undefined pass-through.)
      const __mmask16 all = 0xFFFF;
      v = _mm512_maskz_max_ps(all, _mm512_set1_ps(t.lo), v);
      v = _mm512_maskz_min_ps(all, _mm512_set1_ps(t.hi), v);
    }
    if (t.silu) v = silu16(v);
  }
  _mm512_mask_storeu_ps(c, m, v);
}

template <int R>
void tile_rows(const MicroTile& t) {
  __m512 even[R];
  __m512 odd[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    even[r] = _mm512_setzero_ps();
    odd[r] = _mm512_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
  // kGemmNr for a packed panel; B's row stride when B is read in place.
  const ptrdiff_t ldb = t.ldb;
  int64_t k = 0;
#pragma GCC unroll 2
  for (; k + 2 <= t.kc; k += 2) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + ldb);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      even[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r]), b0, even[r]);
      odd[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[kGemmMr + r]), b1, odd[r]);
    }
    a += 2 * kGemmMr;
    b += 2 * ldb;
  }
  if (k < t.kc) {
    const __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) even[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r]), b0, even[r]);
  }
  const __mmask16 m = static_cast<__mmask16>((1u << t.nr) - 1u);
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) finish_row(t, r, _mm512_add_ps(even[r], odd[r]), m);
}

// tile_rows for an N-edge tile of at most 8 columns: the same sums on one
// ymm per row (Zen 4 issues two 256-bit FMAs per cycle against one 512-bit
// one, so the narrow edge of an N such as 100 = 6 x 16 + 4 costs half a
// panel). Each lane sees the operations of tile_rows in the same order; the
// rows go through finish_row widened with zero upper lanes, which the
// column mask leaves unstored.
template <int R>
void tile_rows_narrow(const MicroTile& t) {
  __m256 even[R];
  __m256 odd[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    even[r] = _mm256_setzero_ps();
    odd[r] = _mm256_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
  const ptrdiff_t ldb = t.ldb;
  int64_t k = 0;
#pragma GCC unroll 2
  for (; k + 2 <= t.kc; k += 2) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + ldb);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      even[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + r), b0, even[r]);
      odd[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + kGemmMr + r), b1, odd[r]);
    }
    a += 2 * kGemmMr;
    b += 2 * ldb;
  }
  if (k < t.kc) {
    const __m256 b0 = _mm256_loadu_ps(b);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) even[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + r), b0, even[r]);
  }
  const __mmask16 m = static_cast<__mmask16>((1u << t.nr) - 1u);
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    const __m256d sum = _mm256_castps_pd(_mm256_add_ps(even[r], odd[r]));
    finish_row(t, r,
               _mm512_castpd_ps(_mm512_maskz_insertf64x4(static_cast<__mmask8>(0xFF),
                                                         _mm512_setzero_pd(), sum, 0)),
               m);
  }
}

}  // namespace

void f32_gemm_ukernel__avx512_6x16(const MicroTile& t) {
  // A packed A panel only (lda == 0): the narrow edge reads k * kGemmMr + r.
  if (t.nr <= 8 && t.lda == 0) {
    switch (t.mr) {
      case 1: tile_rows_narrow<1>(t); return;
      case 2: tile_rows_narrow<2>(t); return;
      case 3: tile_rows_narrow<3>(t); return;
      case 4: tile_rows_narrow<4>(t); return;
      case 5: tile_rows_narrow<5>(t); return;
      default: tile_rows_narrow<6>(t); return;
    }
  }
  switch (t.mr) {
    case 1: tile_rows<1>(t); break;
    case 2: tile_rows<2>(t); break;
    case 3: tile_rows<3>(t); break;
    case 4: tile_rows<4>(t); break;
    case 5: tile_rows<5>(t); break;
    default: tile_rows<6>(t); break;
  }
}

#else  // built without AVX-512: never selected (cpu_features), kept for linking.

void f32_gemm_ukernel__avx512_6x16(const MicroTile& t) { f32_gemm_ukernel__generic_6x16(t); }

#endif

}  // namespace internal
}  // namespace opt
}  // namespace etr
