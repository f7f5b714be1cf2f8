// The two inner loops of the quantized attention kernel
// (op_quantized_sdpa.cpp): an exact integer dot product of a centred int16
// query row with an int8 key row, and y += w * (x - zero_point) for an int8
// value row into a Float accumulator. llm::generic (quantized_attention_math.cpp)
// runs anywhere; llm::avx2 (quantized_attention_math_avx2.cpp, AVX2 + FMA,
// 16 elements per step) only where opt::cpu_features().avx2_fma is true
// (where the compiler cannot build AVX2 it forwards to llm::generic). The dot
// products are equal in both; the accumulations differ in rounding (FMA).
#pragma once

#include <cstdint>

namespace etr {
namespace llm {

#define ETR_LLM_QUANTIZED_MATH_DECLARE(ns)                                         \
  namespace ns {                                                                   \
  int32_t dot_i16_i8(const int16_t* a, const int8_t* b, int64_t n);                \
  void axpy_i8(float w, const int8_t* x, int32_t zero_point, float* y, int64_t n); \
  }

ETR_LLM_QUANTIZED_MATH_DECLARE(generic)
ETR_LLM_QUANTIZED_MATH_DECLARE(avx2)

#undef ETR_LLM_QUANTIZED_MATH_DECLARE

}  // namespace llm
}  // namespace etr
