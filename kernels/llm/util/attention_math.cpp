// Generic bodies of attention_math.h: loops the compiler turns into vector
// code for the baseline target.
#include "kernels/llm/util/attention_math.h"

namespace etr {
namespace llm {
namespace generic {

float dot(const float* a, const float* b, int64_t n) {
  // Eight independent partial sums: vector lanes without reassociating one sum.
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) part[j] += a[i + j] * b[i + j];
  }
  float sum =
      ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7]));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void axpy(float a, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void dot_rows(const float* q, const float* k, int64_t stride, int64_t count, int64_t n,
              float* out) {
  for (int64_t j = 0; j < count; ++j) out[j] = dot(q, k + j * stride, n);
}

void axpy_rows(const float* p, const float* x, int64_t stride, int64_t count, float* y, int64_t n) {
  for (int64_t j = 0; j < count; ++j) axpy(p[j], x + j * stride, y, n);
}

}  // namespace generic
}  // namespace llm
}  // namespace etr
