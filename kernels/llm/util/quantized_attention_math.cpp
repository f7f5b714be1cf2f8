// Generic bodies of quantized_attention_math.h: loops the compiler turns
// into vector code for the baseline target (the dot product into
// multiply-add pairs of 16-bit lanes).
#include "kernels/llm/util/quantized_attention_math.h"

namespace etr {
namespace llm {
namespace generic {

int32_t dot_i16_i8(const int16_t* a, const int8_t* b, int64_t n) {
  int32_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  return sum;
}

void axpy_i8(float w, const int8_t* x, int32_t zero_point, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] += w * static_cast<float>(static_cast<int32_t>(x[i]) - zero_point);
  }
}

}  // namespace generic
}  // namespace llm
}  // namespace etr
