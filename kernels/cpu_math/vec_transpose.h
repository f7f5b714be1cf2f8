// 2-D transpose of 32-bit elements for permute_copy: out[i * ldo + j] =
// in[j * ldi + i] for i < rows, j < cols (a tile; callers block the matrix).
// AVX2 8x8 register transposes where cpu_features() allows, loops otherwise.
#pragma once

#include <cstdint>

namespace etr {
namespace opt {

void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols);

// out[i * 6 + j] = in[j * ldi + i] for i < rows, j < cols (1..6), and 0 for
// j >= cols: up to six rows of `rows` floats interleaved, zero-padded (the
// GEMM's packed A panel); out is dense (6 * rows floats).
void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows);

namespace avx2 {
// Only when cpu_features().avx2_fma (vec_transpose_avx2.cpp).
void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols);
void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows);
}  // namespace avx2

namespace generic {
void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols);
void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows);
}  // namespace generic

}  // namespace opt
}  // namespace etr
