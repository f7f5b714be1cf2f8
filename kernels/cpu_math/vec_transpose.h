// 2-D transpose of 32-bit elements for permute_copy: out[i * ldo + j] =
// in[j * ldi + i] for i < rows, j < cols (a tile; callers block the matrix).
// AVX2 8x8 register transposes where cpu_features() allows, loops otherwise.
#pragma once

#include <cstdint>

namespace etr {
namespace opt {

void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols);

namespace avx2 {
// Only when cpu_features().avx2_fma (vec_transpose_avx2.cpp).
void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols);
}  // namespace avx2

namespace generic {
void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols);
}  // namespace generic

}  // namespace opt
}  // namespace etr
