// The AVX2 + FMA micro-kernel of the GEMM engine: a 6x16 tile of C in 12 ymm
// accumulators; per k, two loads of the B panel, six broadcasts of A and
// twelve FMAs. Row counts below 6 (the M edge) get their own instantiation so
// no FMA is spent on padding rows; columns below 16 (the N edge) use masked
// loads and stores in the epilogue.
#include "kernels/optimized/util/gemm_internal.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace etr {
namespace opt {
namespace internal {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

// Lane j of the pair is all-ones when j < nr (nr in [0, 16]).
alignas(64) constexpr int32_t kMaskSource[32] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                 -1, -1, -1, -1, -1, 0,  0,  0,  0,  0,  0,
                                                 0,  0,  0,  0,  0,  0,  0,  0,  0,  0};

struct ColMask {
  __m256i lo, hi;
};

inline ColMask col_mask(int nr) {
  const int32_t* base = kMaskSource + (16 - nr);
  return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(base)),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 8))};
}

// Applies the epilogue to one row (v0: columns 0-7, v1: 8-15) and stores it.
template <bool kFull>
inline void finish_row(const MicroTile& t, int r, __m256 v0, __m256 v1, const ColMask& m) {
  float* c = t.c + r * t.ldc;
  if (t.alpha != 1.0f) {
    const __m256 alpha = _mm256_set1_ps(t.alpha);
    v0 = _mm256_mul_ps(v0, alpha);
    v1 = _mm256_mul_ps(v1, alpha);
  }
  if (!t.first || t.beta != 0.0f) {
    const __m256 c0 = kFull ? _mm256_loadu_ps(c) : _mm256_maskload_ps(c, m.lo);
    const __m256 c1 = kFull ? _mm256_loadu_ps(c + 8) : _mm256_maskload_ps(c + 8, m.hi);
    if (!t.first || t.beta == 1.0f) {
      v0 = _mm256_add_ps(v0, c0);
      v1 = _mm256_add_ps(v1, c1);
    } else {
      const __m256 beta = _mm256_set1_ps(t.beta);
      v0 = _mm256_fmadd_ps(beta, c0, v0);
      v1 = _mm256_fmadd_ps(beta, c1, v1);
    }
  }
  if (t.last) {
    if (t.row_bias != nullptr) {
      const __m256 rb = _mm256_broadcast_ss(t.row_bias + r);
      v0 = _mm256_add_ps(v0, rb);
      v1 = _mm256_add_ps(v1, rb);
    }
    if (t.col_bias != nullptr) {
      const float* cb = t.col_bias;
      v0 = _mm256_add_ps(v0, kFull ? _mm256_loadu_ps(cb) : _mm256_maskload_ps(cb, m.lo));
      v1 = _mm256_add_ps(v1, kFull ? _mm256_loadu_ps(cb + 8) : _mm256_maskload_ps(cb + 8, m.hi));
    }
    if (t.clamp) {
      // max/min return their second operand when either is NaN: NaN stays.
      const __m256 lo = _mm256_set1_ps(t.lo);
      const __m256 hi = _mm256_set1_ps(t.hi);
      v0 = _mm256_min_ps(hi, _mm256_max_ps(lo, v0));
      v1 = _mm256_min_ps(hi, _mm256_max_ps(lo, v1));
    }
  }
  if (kFull) {
    _mm256_storeu_ps(c, v0);
    _mm256_storeu_ps(c + 8, v1);
  } else {
    _mm256_maskstore_ps(c, m.lo, v0);
    _mm256_maskstore_ps(c + 8, m.hi, v1);
  }
}

template <int R>
void tile_rows(const MicroTile& t) {
  __m256 acc0[R];
  __m256 acc1[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    acc0[r] = _mm256_setzero_ps();
    acc1[r] = _mm256_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
#pragma GCC unroll 4
  for (int64_t k = 0; k < t.kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r);
      acc0[r] = _mm256_fmadd_ps(av, b0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(av, b1, acc1[r]);
    }
    a += kGemmMr;
    b += kGemmNr;
  }
  const ColMask m = col_mask(t.nr);
  if (t.nr == kGemmNr) {
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) finish_row<true>(t, r, acc0[r], acc1[r], m);
  } else {
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) finish_row<false>(t, r, acc0[r], acc1[r], m);
  }
}

}  // namespace

void f32_gemm_ukernel__avx2_6x16(const MicroTile& t) {
  switch (t.mr) {
    case 1: tile_rows<1>(t); break;
    case 2: tile_rows<2>(t); break;
    case 3: tile_rows<3>(t); break;
    case 4: tile_rows<4>(t); break;
    case 5: tile_rows<5>(t); break;
    default: tile_rows<6>(t); break;
  }
}

#else  // no AVX2 in this build (not x86-64): never selected, kept for linking.

void f32_gemm_ukernel__avx2_6x16(const MicroTile& t) { f32_gemm_ukernel__generic_6x16(t); }

#endif

}  // namespace internal
}  // namespace opt
}  // namespace etr
