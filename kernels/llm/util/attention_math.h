// The two inner loops of the attention kernel on Float: a dot product (query
// row . key row) and y += a * x (value rows into the output accumulator).
// llm::generic (attention_math.cpp) runs anywhere; llm::avx2
// (attention_math_avx2.cpp, AVX2 + FMA, 32 floats per step) only where
// opt::cpu_features().avx2_fma is true (where the compiler cannot build AVX2
// it forwards to llm::generic). The two differ in rounding (FMA, summation
// order), not in what they compute.
#pragma once

#include <cstdint>

namespace etr {
namespace llm {

#define ETR_LLM_ATTENTION_MATH_DECLARE(ns)                 \
  namespace ns {                                           \
  float dot(const float* a, const float* b, int64_t n);    \
  void axpy(float a, const float* x, float* y, int64_t n); \
  }

ETR_LLM_ATTENTION_MATH_DECLARE(generic)
ETR_LLM_ATTENTION_MATH_DECLARE(avx2)

#undef ETR_LLM_ATTENTION_MATH_DECLARE

}  // namespace llm
}  // namespace etr
