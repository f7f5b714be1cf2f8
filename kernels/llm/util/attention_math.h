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

// dot_rows: out[j] = dot(q, k + j * stride, n) for j < count, each value
// exactly dot's. axpy_rows: axpy(p[j], x + j * stride, y, n) for j = 0, 1, ..
// count - 1 in order, with exactly axpy's result (the AVX2 body keeps y in
// registers across the rows).
#define ETR_LLM_ATTENTION_MATH_DECLARE(ns)                                                \
  namespace ns {                                                                          \
  float dot(const float* a, const float* b, int64_t n);                                   \
  void axpy(float a, const float* x, float* y, int64_t n);                                \
  void dot_rows(const float* q, const float* k, int64_t stride, int64_t count, int64_t n, \
                float* out);                                                              \
  void axpy_rows(const float* p, const float* x, int64_t stride, int64_t count, float* y, \
                 int64_t n);                                                              \
  }

ETR_LLM_ATTENTION_MATH_DECLARE(generic)
ETR_LLM_ATTENTION_MATH_DECLARE(avx2)

#undef ETR_LLM_ATTENTION_MATH_DECLARE

}  // namespace llm
}  // namespace etr
