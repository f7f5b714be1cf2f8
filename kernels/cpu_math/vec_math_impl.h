// The per-instruction-set bodies behind vec_math.h: opt::generic (vec_math.cpp,
// any CPU) and opt::avx2 (vec_math_avx2.cpp; call it only when
// opt::cpu_features().avx2_fma is true; where the compiler cannot build AVX2 it
// forwards to opt::generic). Same contracts as vec_math.h; one signature list
// declares both so they cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_math/vec_math.h"

#define ETR_OPT_VEC_MATH_DECLARE(ns)                                                             \
  namespace ns {                                                                                 \
  void unary(const UnaryParams& p, const float* x, float* y, size_t n);                          \
  void binary(const BinaryParams& p, const float* a, size_t sa, const float* b, size_t sb,       \
              float* y, size_t n);                                                               \
  void select(const uint8_t* c, size_t sc, const float* a, size_t sa, const float* b, size_t sb, \
              float* y, size_t n);                                                               \
  float max(const float* x, size_t n);                                                           \
  float exp_shift_sum(const float* x, float shift, float* y, size_t n);                          \
  float exp_shift_sum_nonpositive(const float* x, float shift, float* y, size_t n);              \
  void affine(const float* x, float scale, float shift, float* y, size_t n);                     \
  void normalize(const float* x, double mean, double rstd, const float* w, const float* b,       \
                 float* y, size_t n);                                                            \
  void normalize_f32(const float* x, float mean, float rstd, const float* w, const float* b,     \
                     float* y, size_t n);                                                        \
  double sum_f64(const float* x, size_t n);                                                      \
  double sum_sq_dev_f64(const float* x, double mean, size_t n);                                  \
  void row_means(const float* x, size_t rows, size_t n, double divisor, float* y);               \
  }

namespace etr {
namespace opt {

ETR_OPT_VEC_MATH_DECLARE(generic)
ETR_OPT_VEC_MATH_DECLARE(avx2)

}  // namespace opt
}  // namespace etr

#undef ETR_OPT_VEC_MATH_DECLARE
