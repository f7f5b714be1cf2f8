// Pieces shared by dq_linear.cpp and its AVX2 kernels (dq_linear_avx2.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/dq_linear.h"

namespace etr {
namespace xnnpack {
namespace dq {

// Internal linkage: each translation unit keeps the copy compiled with its
// own instruction set (the _avx2.cpp file's may use AVX2 and FMA), so the
// linker never hands the generic file the AVX2 one.
namespace {

// XNNPACK's math_min_f32 / math_max_f32 on x86 (NaN handling included).
inline float xmin(float a, float b) { return b < a ? b : a; }
inline float xmax(float a, float b) { return b < a ? a : b; }

inline float epilogue(int32_t dot, int32_t zp, int32_t ksum, float in_scale, float w_scale,
                      float bias, float lo, float hi) {
  const float f = static_cast<float>(static_cast<int64_t>(dot) - static_cast<int64_t>(zp) * ksum);
  const float v = std::fma(f * in_scale, w_scale, bias);
  return xmin(xmax(v, lo), hi);
}

}  // namespace

// Outputs per thread-pool chunk unit and per cache block.
constexpr size_t kPair = 2;
constexpr size_t kBlockPairs = 16;

// AVX2 + FMA blocks of outputs [o0, o1) for `rows` rows (dq_linear_avx2.cpp):
// per-channel int8 weights and block-wise (qbint4) weights. Called only where
// opt::cpu_features().avx2_fma; false (nothing written) in a build whose
// file was compiled without AVX2.
bool dq_block_avx2(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
                   size_t o0, size_t o1, float* y);
bool qb4w_block_avx2(const int8_t* q, const Qd8Params* params, size_t rows,
                     const DqLinearWeights& w, size_t o0, size_t o1, float* y);
// The same for qbint4 weights in qb4w_pack_row's layout (w.w4); true when
// this build compiled it (qb4w_packed_built()).
bool qb4w_packed_block_avx2(const int8_t* q, const Qd8Params* params, size_t rows,
                            const DqLinearWeights& w, size_t o0, size_t o1, float* y);
bool qb4w_packed_built();
// qbint4 weights in qb4w_vnni_pack's layout (w.w4_vnni), output groups
// [g0, g1) (dq_linear_avx512vnni.cpp); called only where
// opt::cpu_features().avx512_vnni and qb4w_vnni_built().
void qb4w_vnni_block(const int8_t* q, const Qd8Params* params, size_t rows,
                     const DqLinearWeights& w, size_t g0, size_t g1, float* y);
bool qb4w_vnni_built();

// The AVX2 pair kernel (dq_linear_avx2.cpp): rows x output blocks of 16
// [b0, b1) from the pair-packed weights w.wpairs (dq_pairs_usable); false
// (nothing written) in a build without the AVX2 file, where pairs_built()
// is false (and dq_pairs_usable with it).
bool dq_pairs_blocks_avx2(const int8_t* q, const Qd8Params* params, size_t rows,
                          const DqLinearWeights& w, size_t b0, size_t b1, float* y);
bool pairs_built();

// The qd8 conversion's loops with AVX2 (dq_linear_avx2.cpp), the plain
// loops' results exactly: min and max of x[0..n) folded into *lo and *hi
// (NaN skipped), and q = round_even(clamp(x * m, qlo, qhi)) + zp with NaN
// taken as 0. False (nothing done) in a build without the AVX2 file.
bool qd8_min_max_avx2(const float* x, size_t n, float* lo, float* hi);
bool qd8_quantize_avx2(const float* x, size_t n, float m, float qlo, float qhi, int32_t zp,
                       int8_t* q);

// The AVX-512 VNNI kernel (dq_linear_avx512.cpp): rows [r0, r1) x the nb
// (1 or 2) blocks of 16 outputs from block ob on, from the packed weights
// w.wvnni. vnni_built() is false in a build whose file was compiled without
// AVX-512.
bool vnni_built();
void vnni_rows(const int8_t* q, const Qd8Params* params, size_t r0, size_t r1,
               const DqLinearWeights& w, size_t ob, size_t nb, float* y);
// The same for a static int8 layer (qs8_linear): int8 outputs, nb 1 to 4.
void vnni_rows_qs8(const int8_t* x, size_t r0, size_t r1, const DqLinearWeights& w, size_t ob,
                   size_t nb, int8_t* y);

}  // namespace dq
}  // namespace xnnpack
}  // namespace etr
