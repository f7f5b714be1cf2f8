// Float32 array primitives for the elementwise, activation and
// normalization kernels. Each entry point picks its AVX2+FMA body
// (vec_math_avx2.cpp) when cpu_features() allows it and its generic C++ body
// (vec_math.cpp) otherwise. Results follow the portable kernels' formulas:
// NaN inputs give NaN, exp is within ~2 ulp of std::exp, erf within 3.5e-7
// of std::erf (the AVX2 body; the generic one calls std::erf).
// All arrays are contiguous; in-place calls (x == y) are allowed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {
namespace opt {

enum class UnaryKind : uint8_t {
  kRelu,      // x < 0 ? 0 : x
  kClamp,     // min(max(x, lo), hi), NaN stays NaN; bounds are not NaN
  kSigmoid,   // 1 / (1 + exp(-x))
  kGeluErf,   // 0.5 x (1 + erf(x / sqrt(2)))
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kSilu,      // x * sigmoid(x), both rounded as kSigmoid then a multiply
  // Hardswish as the exporter decomposes it: t = x + shift, clamped to
  // [lo, hi] then to [lo2, hi2], then (x * t) / divisor, each step rounded
  // to float (the portable add, clamp, clamp, mul, div); bounds are not NaN.
  kHardswish,
};

struct UnaryParams {
  UnaryKind kind = UnaryKind::kRelu;
  float lo = 0.0f;  // kClamp: -inf when absent
  float hi = 0.0f;  // kClamp: +inf when absent
  // kHardswish only (also lo and hi above).
  float shift = 0.0f;
  float lo2 = 0.0f;
  float hi2 = 0.0f;
  float divisor = 1.0f;
};

enum class BinaryKind : uint8_t { kAdd, kSub, kMul, kDiv };

// kAdd/kSub compute a +/- alpha * b (alpha applied only when use_alpha).
struct BinaryParams {
  BinaryKind kind = BinaryKind::kAdd;
  bool use_alpha = false;
  float alpha = 1.0f;
};

// y[i] = f(x[i]).
void unary(const UnaryParams& p, const float* x, float* y, size_t n);

// y[i] = a[i * sa] op b[i * sb]; sa and sb are 0 (a broadcast element) or 1.
void binary(const BinaryParams& p, const float* a, size_t sa, const float* b, size_t sb, float* y,
            size_t n);

// y[i] = c[i * sc] ? a[i * sa] : b[i * sb]; strides 0 or 1; c holds bytes
// that are 0 or not.
void select(const uint8_t* c, size_t sc, const float* a, size_t sa, const float* b, size_t sb,
            float* y, size_t n);

// The largest element; NaN when any element is NaN; -inf when n == 0.
float max(const float* x, size_t n);

// y[i] = exp(x[i] - shift); returns the sum of the y[i].
float exp_shift_sum(const float* x, float shift, float* y, size_t n);

// The same for shift >= every x[i] (softmax's row max): x[i] - shift <= 0 or
// NaN, so exp never overflows and the AVX2 body needs no clamping.
float exp_shift_sum_nonpositive(const float* x, float shift, float* y, size_t n);

// y[i] = x[i] * scale + shift (two roundings, like the portable kernel).
void affine(const float* x, float scale, float shift, float* y, size_t n);

// y[i] = (x[i] - mean) * rstd, then * w[i] and + b[i] when given, computed
// in double and rounded once (as the portable layer norm does).
void normalize(const float* x, double mean, double rstd, const float* w, const float* b, float* y,
               size_t n);

// The same in float: y[i] = fma((x[i] - mean) * rstd, w[i], b[i]) (w and b
// optional), within about 2 ulp of the double-rounded-once result plus
// rstd * ulp(mean) / 2 from mean's rounding to float.
void normalize_f32(const float* x, float mean, float rstd, const float* w, const float* b, float* y,
                   size_t n);

// Sum of the elements and of their squared deviations from `mean`, in double.
double sum_f64(const float* x, size_t n);
double sum_sq_dev_f64(const float* x, double mean, size_t n);

// y[r] = (sum of row r's n elements, in double) / divisor, rounded to float,
// for `rows` consecutive rows of x (n floats apart). The AVX2 body sums 4
// rows at a time (a mean over small planes, 7x7 or 14x14, is bound by each
// row's chain of additions and its reduction, not by the loads).
void row_means(const float* x, size_t rows, size_t n, double divisor, float* y);

}  // namespace opt
}  // namespace etr
