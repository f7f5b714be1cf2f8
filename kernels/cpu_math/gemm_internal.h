// Internals of the GEMM engine (util/gemm.h): the packed panel layout and the
// micro-kernels that gemm.cpp drives.
//
// Packed A: row panels of kGemmMr rows; panel p starts at p * kGemmMr * k and
// holds element (p * kGemmMr + r, kk) at kk * kGemmMr + r. Packed B: column
// panels of kGemmNr columns; panel q starts at q * kGemmNr * k and holds
// element (kk, q * kGemmNr + c) at kk * kGemmNr + c. Rows / columns past the
// matrix edge are zero. A K range [p0, p0 + kc) of a panel is contiguous, so
// the micro-kernel reads a K block of a whole-operand packing in place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_math/gemm.h"

namespace etr {
namespace opt {
namespace internal {

inline constexpr int kGemmMr = 6;
inline constexpr int kGemmNr = 16;

// One micro-tile: C[mr, nr] (mr <= kGemmMr, nr <= kGemmNr) from a kc-long A
// panel and B panel. `first`: C holds the caller's C (read only when
// beta != 0), else the partial sum of earlier K blocks. Every block stores
// alpha * (A @ B) + (first ? beta * C : C); `last` then adds the biases and
// clamps.
struct MicroTile {
  int64_t kc = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  // Floats from one k of the B panel to the next: kGemmNr for a packed panel,
  // B's row stride when B is read in place (only a kernel that honours it is
  // given one: Blocking::reads_b_in_place in gemm.cpp).
  ptrdiff_t ldb = kGemmNr;
  // 0: `a` is a packed row panel (element (r, k) at k * kGemmMr + r).
  // Otherwise A is read in place: element (r, k) at r * lda + k (only a
  // kernel that honours it is given one: Blocking::reads_a_in_place).
  ptrdiff_t lda = 0;
  float* c = nullptr;
  ptrdiff_t ldc = 0;
  int mr = 0;
  int nr = 0;
  bool first = true;
  bool last = true;
  bool clamp = false;
  float alpha = 1.0f;
  float beta = 0.0f;
  const float* row_bias = nullptr;  // mr values for this tile, or null
  const float* col_bias = nullptr;  // nr values for this tile, or null
  float lo = 0.0f;
  float hi = 0.0f;
  // `last` then applies x * sigmoid(x) after the clamp (the epilogue's
  // SiLU); set only for a kernel that honours it (Blocking::applies_silu in
  // gemm.cpp).
  bool silu = false;
};

// Packs rows [i0, i0 + mc) x K range [p0, p0 + kc) of A into row panels at
// dst (ceil(mc / kGemmMr) * kGemmMr * kc floats). `k_scale` (K values, or
// null): element (i, k) is packed as A[i, k] * k_scale[k] (one rounding);
// with `k_shift` (K values, or null; only with k_scale) k_shift[k] is then
// added (a second rounding) and with `k_relu` the result clamped at 0
// (GemmArgs::k_shift).
void pack_a_panels(MatrixView a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* dst,
                   const float* k_scale = nullptr, const float* k_shift = nullptr,
                   bool k_relu = false);
// Packs K range [p0, p0 + kc) x columns [j0, j0 + nc) of B into column
// panels at dst (ceil(nc / kGemmNr) * kGemmNr * kc floats); `k_scale`,
// `k_shift`, `k_relu` as above, element (k, j) packed as B[k, j] * k_scale[k]
// (+ k_shift[k], clamped at 0).
void pack_b_panels(MatrixView b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* dst,
                   const float* k_scale = nullptr, const float* k_shift = nullptr,
                   bool k_relu = false);

// pack_b_panels' transformed rows on AVX2 (gemm_avx2.cpp; only where
// cpu_features().avx2_fma): for kk < kc, row kk of the source (src + kk *
// src_row_stride, or the packed panels themselves when src_in_panels)
// becomes max(v * k_scale[kk] + k_shift[kk], 0) in row kk of each panel at
// dst (panels panel_stride floats apart; k_shift null: no add; !relu: no
// clamp), `full` columns in whole panels and `tail` in a last partial one
// whose padding is zeroed. Rounded as the scalar path.
void transform_b_rows_avx2(const float* src, int64_t src_row_stride, bool src_in_panels, float* dst,
                           int64_t kc, int64_t full, int tail, int64_t panel_stride,
                           const float* k_scale, const float* k_shift, bool relu);

using MicroKernelFn = void (*)(const MicroTile& t);

// The epilogue of a micro-tile (alpha, beta or accumulate, biases, clamp) for
// an accumulator tile held in memory; the mr x nr corner is stored.
void store_tile(const MicroTile& t, const float (*acc)[kGemmNr]);

// Plain C++ (any CPU).
void f32_gemm_ukernel__generic_6x16(const MicroTile& t);
// AVX2 + FMA (gemm_avx2.cpp); only where cpu_features().avx2_fma.
void f32_gemm_ukernel__avx2_6x16(const MicroTile& t);
// AVX-512F (gemm_avx512.cpp); only where cpu_features().avx512f.
void f32_gemm_ukernel__avx512_6x16(const MicroTile& t);
// AArch64 NEON (gemm_neon.cpp); forwards to the generic one elsewhere.
void f32_gemm_ukernel__neon_6x16(const MicroTile& t);

}  // namespace internal
}  // namespace opt
}  // namespace etr
