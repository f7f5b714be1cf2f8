// Matrix-vector product for a pointwise convolution over a 1x1 image (the
// squeeze-and-excitation layers of EfficientNet): y[i] = bias[i] + W[i, :] . x,
// then clamped to [lo, hi], then SiLU when asked. W is row-major [m, k] (the
// weights as stored, not packed); the GEMM's 16-wide column panels would
// compute 16 columns for this one.
#pragma once

#include <cstdint>

#include "kernels/cpu_math/conv_depthwise.h"

namespace etr {
namespace opt {

// AVX2 + FMA (gemv_avx2.cpp); only where cpu_features().avx2_fma. bias may
// be null; y holds m floats and does not overlap W or x.
void gemv_rows_avx2(const float* w, int64_t m, int64_t k, const float* x, const float* bias,
                    const DepthwiseEpilogue& epilogue, float* y);

}  // namespace opt
}  // namespace etr
