// The AVX2 + FMA micro-kernel of the GEMM engine: a 6x16 tile of C in 12 ymm
// accumulators; per k, two loads of the B panel, six broadcasts of A and
// twelve FMAs. Row counts below 6 (the M edge) get their own instantiation so
// no FMA is spent on padding rows; columns below 16 (the N edge) use masked
// loads and stores in the epilogue, and a panel of at most 8 columns (e.g.
// the 49th pixel of a 7x7 output) computes only its first 8. B rows are
// t.ldb apart: a packed panel, or B itself read in place; A is a packed panel
// or (t.lda != 0) A's own rows, lda apart.
#include "kernels/cpu_math/gemm_internal.h"

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

// Columns 0-7 only (nr <= 8: the N edge of a panel), the epilogue of
// finish_row on one vector.
inline void finish_row_half(const MicroTile& t, int r, __m256 v0, __m256i m) {
  float* c = t.c + r * t.ldc;
  if (t.alpha != 1.0f) v0 = _mm256_mul_ps(v0, _mm256_set1_ps(t.alpha));
  if (!t.first || t.beta != 0.0f) {
    const __m256 c0 = _mm256_maskload_ps(c, m);
    v0 = !t.first || t.beta == 1.0f ? _mm256_add_ps(v0, c0)
                                    : _mm256_fmadd_ps(_mm256_set1_ps(t.beta), c0, v0);
  }
  if (t.last) {
    if (t.row_bias != nullptr) v0 = _mm256_add_ps(v0, _mm256_broadcast_ss(t.row_bias + r));
    if (t.col_bias != nullptr) v0 = _mm256_add_ps(v0, _mm256_maskload_ps(t.col_bias, m));
    if (t.clamp) v0 = _mm256_min_ps(_mm256_set1_ps(t.hi), _mm256_max_ps(_mm256_set1_ps(t.lo), v0));
  }
  _mm256_maskstore_ps(c, m, v0);
}

// Element (r, k) of the A operand at `a` (advanced by k already): a packed
// panel, or A's rows read in place lda apart.
template <bool kARows>
inline const float* a_at(const float* a, int r, ptrdiff_t lda) {
  return kARows ? a + r * lda : a + r;
}
template <bool kARows>
constexpr ptrdiff_t a_step() {
  return kARows ? 1 : kGemmMr;
}

// R rows x 8 columns: half the FMAs of tile_rows for a panel whose columns
// 8-15 are padding.
template <int R, bool kInPlace, bool kARows>
void tile_rows_half(const MicroTile& t) {
  const ptrdiff_t ldb = kInPlace ? t.ldb : kGemmNr;
  __m256 acc[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  const float* a = t.a;
  const float* b = t.b;
#pragma GCC unroll 4
  for (int64_t k = 0; k < t.kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r)
      acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(a_at<kARows>(a, r, t.lda)), b0, acc[r]);
    a += a_step<kARows>();
    b += ldb;
  }
  const __m256i m = col_mask(t.nr).lo;
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) finish_row_half(t, r, acc[r], m);
}

// One row (M = 1: a batch-1 linear layer): its 2 accumulators would wait on
// the FMA latency every k, so even and odd k sum apart. (For two rows that
// costs more than it gains.)
template <int R, bool kInPlace, bool kARows>
void tile_rows_few(const MicroTile& t) {
  const ptrdiff_t ldb = kInPlace ? t.ldb : kGemmNr;
  __m256 acc[2][R][2];
  for (int p = 0; p < 2; ++p) {
    for (int r = 0; r < R; ++r) acc[p][r][0] = acc[p][r][1] = _mm256_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
  int64_t k = 0;
#pragma GCC unroll 2
  for (; k + 2 <= t.kc; k += 2) {
#pragma GCC unroll 2
    for (int p = 0; p < 2; ++p) {
      const __m256 b0 = _mm256_loadu_ps(b + p * ldb);
      const __m256 b1 = _mm256_loadu_ps(b + p * ldb + 8);
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_broadcast_ss(a_at<kARows>(a + p * a_step<kARows>(), r, t.lda));
        acc[p][r][0] = _mm256_fmadd_ps(av, b0, acc[p][r][0]);
        acc[p][r][1] = _mm256_fmadd_ps(av, b1, acc[p][r][1]);
      }
    }
    a += 2 * a_step<kARows>();
    b += 2 * ldb;
  }
  if (k < t.kc) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a_at<kARows>(a, r, t.lda));
      acc[0][r][0] = _mm256_fmadd_ps(av, b0, acc[0][r][0]);
      acc[0][r][1] = _mm256_fmadd_ps(av, b1, acc[0][r][1]);
    }
  }
  const ColMask m = col_mask(t.nr);
  for (int r = 0; r < R; ++r) {
    const __m256 v0 = _mm256_add_ps(acc[0][r][0], acc[1][r][0]);
    const __m256 v1 = _mm256_add_ps(acc[0][r][1], acc[1][r][1]);
    if (t.nr == kGemmNr) {
      finish_row<true>(t, r, v0, v1, m);
    } else {
      finish_row<false>(t, r, v0, v1, m);
    }
  }
}

// Aligned to a cache line so the k loop's placement (and speed) does not move
// with the code around it.
template <int R, bool kInPlace, bool kARows>
__attribute__((aligned(64))) void tile_rows(const MicroTile& t) {
  // A packed panel's stride is a constant: the loads keep fixed offsets.
  const ptrdiff_t ldb = kInPlace ? t.ldb : kGemmNr;
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
      const __m256 av = _mm256_broadcast_ss(a_at<kARows>(a, r, t.lda));
      acc0[r] = _mm256_fmadd_ps(av, b0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(av, b1, acc1[r]);
    }
    a += a_step<kARows>();
    b += ldb;
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

// One micro-tile for the row count, the N edge and where A and B are read from.
template <bool kInPlace, bool kARows>
void dispatch_tile(const MicroTile& t) {
  if (t.nr <= 8) {
    switch (t.mr) {
      case 1: tile_rows_half<1, kInPlace, kARows>(t); break;
      case 2: tile_rows_half<2, kInPlace, kARows>(t); break;
      case 3: tile_rows_half<3, kInPlace, kARows>(t); break;
      case 4: tile_rows_half<4, kInPlace, kARows>(t); break;
      case 5: tile_rows_half<5, kInPlace, kARows>(t); break;
      default: tile_rows_half<6, kInPlace, kARows>(t); break;
    }
    return;
  }
  switch (t.mr) {
    case 1: tile_rows_few<1, kInPlace, kARows>(t); break;
    case 2: tile_rows<2, kInPlace, kARows>(t); break;
    case 3: tile_rows<3, kInPlace, kARows>(t); break;
    case 4: tile_rows<4, kInPlace, kARows>(t); break;
    case 5: tile_rows<5, kInPlace, kARows>(t); break;
    default: tile_rows<6, kInPlace, kARows>(t); break;
  }
}

}  // namespace

void f32_gemm_ukernel__avx2_6x16(const MicroTile& t) {
  if (t.lda != 0) {  // A read in place (B is then always a packed panel)
    dispatch_tile<false, true>(t);
  } else if (t.ldb == kGemmNr) {
    dispatch_tile<false, false>(t);
  } else {
    dispatch_tile<true, false>(t);
  }
}

namespace {

// v * s (+ b), clamped at 0: the multiply and add rounded apart (no FMA), and
// max(y, 0) returns +0 for -0 and NaN, as the scalar `y > 0 ? y : 0` does.
template <bool kShift, bool kRelu>
inline __m256 affine_relu8(__m256 v, __m256 s, __m256 b) {
  __m256 y = _mm256_mul_ps(v, s);
  if (kShift) y = _mm256_add_ps(y, b);
  return kRelu ? _mm256_max_ps(y, _mm256_setzero_ps()) : y;
}

template <bool kShift, bool kRelu>
void transform_rows(const float* src, int64_t src_row_stride, bool src_in_panels, float* dst,
                    int64_t kc, int64_t full, int tail, int64_t panel_stride, const float* k_scale,
                    const float* k_shift) {
  static_assert(kGemmNr == 16, "two ymm per panel row");
  alignas(32) int32_t lanes[16];
  for (int c = 0; c < 16; ++c) lanes[c] = c < tail ? -1 : 0;
  const __m256i m0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  const __m256i m1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + 8));
  for (int64_t kk = 0; kk < kc; ++kk) {
    const float* s = src + kk * src_row_stride;
    float* d = dst + kk * kGemmNr;
    const __m256 vs = _mm256_set1_ps(k_scale[kk]);
    const __m256 vb = kShift ? _mm256_set1_ps(k_shift[kk]) : _mm256_setzero_ps();
    for (int64_t jp = 0; jp < full; jp += kGemmNr) {
      float* dp = d + jp / kGemmNr * panel_stride;
      const float* sp = src_in_panels ? dp : s + jp;
      const __m256 a = _mm256_loadu_ps(sp);
      const __m256 b = _mm256_loadu_ps(sp + 8);
      _mm256_storeu_ps(dp, affine_relu8<kShift, kRelu>(a, vs, vb));
      _mm256_storeu_ps(dp + 8, affine_relu8<kShift, kRelu>(b, vs, vb));
    }
    if (tail != 0) {
      float* dt = d + full / kGemmNr * panel_stride;
      const float* st = src_in_panels ? dt : s + full;
      const __m256 a = _mm256_maskload_ps(st, m0);
      const __m256 b = _mm256_maskload_ps(st + 8, m1);
      // Masked-off lanes load 0, which the transform may turn into the
      // shift: zero them again for the padding columns.
      const __m256 ya =
          _mm256_and_ps(affine_relu8<kShift, kRelu>(a, vs, vb), _mm256_castsi256_ps(m0));
      const __m256 yb =
          _mm256_and_ps(affine_relu8<kShift, kRelu>(b, vs, vb), _mm256_castsi256_ps(m1));
      _mm256_storeu_ps(dt, ya);
      _mm256_storeu_ps(dt + 8, yb);
    }
  }
}

}  // namespace

void transform_b_rows_avx2(const float* src, int64_t src_row_stride, bool src_in_panels, float* dst,
                           int64_t kc, int64_t full, int tail, int64_t panel_stride,
                           const float* k_scale, const float* k_shift, bool relu) {
  // pack_b_panels transforms only with a shift or the clamp.
  auto* fn = k_shift != nullptr
                 ? (relu ? &transform_rows<true, true> : &transform_rows<true, false>)
                 : &transform_rows<false, true>;
  fn(src, src_row_stride, src_in_panels, dst, kc, full, tail, panel_stride, k_scale, k_shift);
}

#else  // no AVX2 in this build (not x86-64): never selected, kept for linking.

void f32_gemm_ukernel__avx2_6x16(const MicroTile& t) { f32_gemm_ukernel__generic_6x16(t); }

void transform_b_rows_avx2(const float*, int64_t, bool, float*, int64_t, int64_t, int, int64_t,
                           const float*, const float*, bool) {}

#endif

}  // namespace internal
}  // namespace opt
}  // namespace etr
