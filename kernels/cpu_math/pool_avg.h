// The 2x2 stride-2 average pooling row kernel of the optimized avg_pool2d.
#pragma once

#include <cstdint>

namespace etr {
namespace opt {

// Outputs [0, n) of one output row, n the largest multiple of 4 up to ow,
// from input rows r0 and r1 (columns 2x and 2x + 1 for output x): each one
// (((r0[2x] + r0[2x + 1]) + r1[2x]) + r1[2x + 1]) / div in double, rounded to
// float once. Returns n; the caller does the rest (AVX2; only where
// cpu_features().avx2_fma).
int64_t avg_pool_2x2_row_avx2(const float* r0, const float* r1, int64_t ow, double div, float* out);

}  // namespace opt
}  // namespace etr
