// Max pooling row kernel for the optimized max_pool2d_with_indices.
#pragma once

#include <cstdint>

namespace etr {
namespace opt {

// Outputs [x0, x0 + count) of one output row whose windows lie inside the
// input plane `in` (width iw): window rows h0 + ki * dh, columns
// x * sw - pw + kj * dw. Writes the maximum (NaN wins, later taps win ties
// only when NaN) and its flattened index h * iw + w, as the portable kernel
// does. Indices must fit in int32. Only sw 1 or 2; handles whole groups of
// 8 outputs and returns how many it wrote (AVX2; only where
// cpu_features().avx2_fma).
int64_t max_pool_row_avx2(const float* in, int64_t iw, int64_t h0, int64_t x0, int64_t count,
                          int64_t kh, int64_t kw, int64_t sw, int64_t pw, int64_t dh, int64_t dw,
                          float* out, int64_t* idx);

}  // namespace opt
}  // namespace etr
