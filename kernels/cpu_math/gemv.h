// Matrix-vector product for a pointwise convolution over a 1x1 image (the
// squeeze-and-excitation layers of EfficientNet): y[i] = bias[i] + W[i, :] . x,
// then clamped to [lo, hi], then SiLU when asked. W is row-major [m, k] (the
// weights as stored, not packed); the GEMM's 16-wide column panels would
// compute 16 columns for this one.
#pragma once

#include <cstdint>

#include "kernels/cpu_math/conv_depthwise.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

// AVX2 + FMA (gemv_avx2.cpp); only where cpu_features().avx2_fma. bias may
// be null; y holds m floats and does not overlap W or x.
void gemv_rows_avx2(const float* w, int64_t m, int64_t k, const float* x, const float* bias,
                    const DepthwiseEpilogue& epilogue, float* y);

// Rows per panel of the packed layout below.
inline constexpr int64_t kGemvPanelRows = 16;

// Floats of W [m, k] packed by gemv_pack_panels: ceil(m / 16) panels of
// k x 16 (0 when m or k is 0 or the count overflows).
size_t gemv_panels_floats(int64_t m, int64_t k);

// Packs W (row-major [m, k]) into panels of 16 rows, column-major inside a
// panel: element (i, j) at ((i / 16) * k + j) * 16 + i % 16; the rows past m
// of the last panel are zero. (Portable C++; runs at prepare.)
void gemv_pack_panels(const float* w, int64_t m, int64_t k, float* dst);

// y = W . x + bias, then the epilogue's clamp and SiLU, on W packed by
// gemv_pack_panels: each panel is one stream of k x 16 floats read front to
// back (one cache line per input element), its 16 sums in registers, so
// the product runs at the memory's streaming rate (gemv_rows_avx2 reads 4
// rows as 4 streams and folds each row's sums across lanes). Panels split
// over `pool` (null: the calling thread) when the product is large enough.
// AVX2 + FMA (gemv_avx2.cpp); only where cpu_features().avx2_fma. bias may
// be null; y holds m floats and does not overlap W or x.
void gemv_panels_avx2(const float* packed, int64_t m, int64_t k, const float* x, const float* bias,
                      const DepthwiseEpilogue& epilogue, float* y, ThreadPool* pool);

}  // namespace opt
}  // namespace etr
