// The AArch64 NEON micro-kernel of the GEMM engine: the 6x16 tile of C in 24
// q-register accumulators; per k, four loads of the B panel, the six A values
// in one q and one d register, and 24 lane FMAs. The epilogue runs on the tile
// stored to the stack (store_tile), which is small next to the K loop.
#include "kernels/cpu_math/gemm_internal.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace etr {
namespace opt {
namespace internal {

#if defined(__aarch64__) && defined(__ARM_NEON)

void f32_gemm_ukernel__neon_6x16(const MicroTile& t) {
  static_assert(kGemmMr == 6 && kGemmNr == 16, "the NEON kernel is written for 6x16 tiles");
  float32x4_t c00 = vdupq_n_f32(0.0f), c01 = c00, c02 = c00, c03 = c00;
  float32x4_t c10 = c00, c11 = c00, c12 = c00, c13 = c00;
  float32x4_t c20 = c00, c21 = c00, c22 = c00, c23 = c00;
  float32x4_t c30 = c00, c31 = c00, c32 = c00, c33 = c00;
  float32x4_t c40 = c00, c41 = c00, c42 = c00, c43 = c00;
  float32x4_t c50 = c00, c51 = c00, c52 = c00, c53 = c00;
  const float* a = t.a;
  const float* b = t.b;
  for (int64_t k = 0; k < t.kc; ++k, a += kGemmMr, b += kGemmNr) {
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
    const float32x4_t b2 = vld1q_f32(b + 8), b3 = vld1q_f32(b + 12);
    const float32x4_t a03 = vld1q_f32(a);
    const float32x2_t a45 = vld1_f32(a + 4);
    c00 = vfmaq_laneq_f32(c00, b0, a03, 0);
    c01 = vfmaq_laneq_f32(c01, b1, a03, 0);
    c02 = vfmaq_laneq_f32(c02, b2, a03, 0);
    c03 = vfmaq_laneq_f32(c03, b3, a03, 0);
    c10 = vfmaq_laneq_f32(c10, b0, a03, 1);
    c11 = vfmaq_laneq_f32(c11, b1, a03, 1);
    c12 = vfmaq_laneq_f32(c12, b2, a03, 1);
    c13 = vfmaq_laneq_f32(c13, b3, a03, 1);
    c20 = vfmaq_laneq_f32(c20, b0, a03, 2);
    c21 = vfmaq_laneq_f32(c21, b1, a03, 2);
    c22 = vfmaq_laneq_f32(c22, b2, a03, 2);
    c23 = vfmaq_laneq_f32(c23, b3, a03, 2);
    c30 = vfmaq_laneq_f32(c30, b0, a03, 3);
    c31 = vfmaq_laneq_f32(c31, b1, a03, 3);
    c32 = vfmaq_laneq_f32(c32, b2, a03, 3);
    c33 = vfmaq_laneq_f32(c33, b3, a03, 3);
    c40 = vfmaq_lane_f32(c40, b0, a45, 0);
    c41 = vfmaq_lane_f32(c41, b1, a45, 0);
    c42 = vfmaq_lane_f32(c42, b2, a45, 0);
    c43 = vfmaq_lane_f32(c43, b3, a45, 0);
    c50 = vfmaq_lane_f32(c50, b0, a45, 1);
    c51 = vfmaq_lane_f32(c51, b1, a45, 1);
    c52 = vfmaq_lane_f32(c52, b2, a45, 1);
    c53 = vfmaq_lane_f32(c53, b3, a45, 1);
  }
  float acc[kGemmMr][kGemmNr];
  const float32x4_t rows[kGemmMr][4] = {{c00, c01, c02, c03}, {c10, c11, c12, c13},
                                        {c20, c21, c22, c23}, {c30, c31, c32, c33},
                                        {c40, c41, c42, c43}, {c50, c51, c52, c53}};
  for (int r = 0; r < kGemmMr; ++r) {
    for (int q = 0; q < 4; ++q) vst1q_f32(&acc[r][4 * q], rows[r][q]);
  }
  store_tile(t, acc);
}

#else

void f32_gemm_ukernel__neon_6x16(const MicroTile& t) { f32_gemm_ukernel__generic_6x16(t); }

#endif

}  // namespace internal
}  // namespace opt
}  // namespace etr
