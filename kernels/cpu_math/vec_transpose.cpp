#include "kernels/cpu_math/vec_transpose.h"

#include "kernels/cpu_math/cpu_features.h"

namespace etr {
namespace opt {

namespace generic {
void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i * ldo + j] = in[j * ldi + i];
  }
}
void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int j = 0; j < 6; ++j) out[i * 6 + j] = j < cols ? in[j * ldi + i] : 0.0f;
  }
}
}  // namespace generic

void transpose_f32(const float* in, int64_t ldi, float* out, int64_t ldo, int64_t rows,
                   int64_t cols) {
  if (cpu_features().avx2_fma) {
    avx2::transpose_f32(in, ldi, out, ldo, rows, cols);
  } else {
    generic::transpose_f32(in, ldi, out, ldo, rows, cols);
  }
}

void transpose_6_f32(const float* in, int64_t ldi, int cols, float* out, int64_t rows) {
  if (cpu_features().avx2_fma) {
    avx2::transpose_6_f32(in, ldi, cols, out, rows);
  } else {
    generic::transpose_6_f32(in, ldi, cols, out, rows);
  }
}

}  // namespace opt
}  // namespace etr
