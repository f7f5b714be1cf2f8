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
// One row of qd8_quantize (k floats -> k codes and the row's parameters),
// called only where opt::cpu_features().avx2_fma; false (nothing written)
// in a build whose file was compiled without AVX2.
bool qd8_row_avx2(const float* x, size_t k, int8_t* q, Qd8Params* params);
// qbint4 weights in qb4w_vnni_pack's layout (w.w4_vnni), output groups
// [g0, g1) (dq_linear_avx512vnni.cpp); called only where
// opt::cpu_features().avx512_vnni and qb4w_vnni_built().
void qb4w_vnni_block(const int8_t* q, const Qd8Params* params, size_t rows,
                     const DqLinearWeights& w, size_t g0, size_t g1, float* y);
bool qb4w_vnni_built();

}  // namespace dq
}  // namespace xnnpack
}  // namespace etr
