// Generic bodies of vec_math.h (plain loops the compiler may vectorize) and
// the dispatch to the AVX2 bodies.
#include "kernels/cpu_math/vec_math.h"

#include <cmath>
#include <limits>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/vec_math_impl.h"

namespace etr {
namespace opt {
namespace generic {
namespace {

template <typename F>
void map(const float* x, float* y, size_t n, F f) {
  for (size_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

float gelu_erf(float x) {
  return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(0.7071067811865476)));
}

float gelu_tanh(float x) {
  const float inner = static_cast<float>(0.7978845608028654) * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}

template <typename F>
void binary_loop(const float* a, size_t sa, const float* b, size_t sb, float* y, size_t n, F f) {
  if (n == 0) return;  // a and b may then be empty
  if (sa == 1 && sb == 1) {
    for (size_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  } else if (sa == 1) {
    const float bv = b[0];
    for (size_t i = 0; i < n; ++i) y[i] = f(a[i], bv);
  } else if (sb == 1) {
    const float av = a[0];
    for (size_t i = 0; i < n; ++i) y[i] = f(av, b[i]);
  } else {
    const float v = f(a[0], b[0]);
    for (size_t i = 0; i < n; ++i) y[i] = v;
  }
}

}  // namespace

void unary(const UnaryParams& p, const float* x, float* y, size_t n) {
  switch (p.kind) {
    case UnaryKind::kRelu: return map(x, y, n, [](float v) { return v < 0.0f ? 0.0f : v; });
    case UnaryKind::kClamp: {
      const float lo = p.lo, hi = p.hi;
      return map(x, y, n, [lo, hi](float v) {
        if (std::isnan(v)) return v;
        v = v < lo ? lo : v;
        return v > hi ? hi : v;
      });
    }
    case UnaryKind::kSigmoid:
      return map(x, y, n, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
    case UnaryKind::kGeluErf: return map(x, y, n, gelu_erf);
    case UnaryKind::kGeluTanh: return map(x, y, n, gelu_tanh);
    case UnaryKind::kSilu:
      return map(x, y, n, [](float v) { return v * (1.0f / (1.0f + std::exp(-v))); });
    case UnaryKind::kHardswish: {
      const UnaryParams q = p;
      auto clamp = [](float v, float lo, float hi) {
        if (std::isnan(v)) return v;
        v = v < lo ? lo : v;
        return v > hi ? hi : v;
      };
      return map(x, y, n, [q, clamp](float v) {
        const float t = clamp(clamp(v + q.shift, q.lo, q.hi), q.lo2, q.hi2);
        const float prod = v * t;
        return prod / q.divisor;
      });
    }
  }
}

void binary(const BinaryParams& p, const float* a, size_t sa, const float* b, size_t sb, float* y,
            size_t n) {
  const float alpha = p.alpha;
  switch (p.kind) {
    case BinaryKind::kAdd:
      if (p.use_alpha) {
        return binary_loop(a, sa, b, sb, y, n, [alpha](float u, float v) {
          const float t = alpha * v;
          return u + t;
        });
      }
      return binary_loop(a, sa, b, sb, y, n, [](float u, float v) { return u + v; });
    case BinaryKind::kSub:
      if (p.use_alpha) {
        return binary_loop(a, sa, b, sb, y, n, [alpha](float u, float v) {
          const float t = alpha * v;
          return u - t;
        });
      }
      return binary_loop(a, sa, b, sb, y, n, [](float u, float v) { return u - v; });
    case BinaryKind::kMul:
      return binary_loop(a, sa, b, sb, y, n, [](float u, float v) { return u * v; });
    case BinaryKind::kDiv:
      return binary_loop(a, sa, b, sb, y, n, [](float u, float v) { return u / v; });
  }
}

void select(const uint8_t* c, size_t sc, const float* a, size_t sa, const float* b, size_t sb,
            float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = c[i * sc] != 0 ? a[i * sa] : b[i * sb];
}

float max(const float* x, size_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) return x[i];
    m = x[i] > m ? x[i] : m;
  }
  return m;
}

float exp_shift_sum(const float* x, float shift, float* y, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - shift);
    sum += y[i];
  }
  return sum;
}

float exp_shift_sum_nonpositive(const float* x, float shift, float* y, size_t n) {
  return exp_shift_sum(x, shift, y, n);
}

void affine(const float* x, float scale, float shift, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float t = x[i] * scale;
    y[i] = t + shift;
  }
}

void normalize(const float* x, double mean, double rstd, const float* w, const float* b, float* y,
               size_t n) {
  for (size_t i = 0; i < n; ++i) {
    double v = (static_cast<double>(x[i]) - mean) * rstd;
    if (w != nullptr) v *= static_cast<double>(w[i]);
    if (b != nullptr) v += static_cast<double>(b[i]);
    y[i] = static_cast<float>(v);
  }
}

void normalize_f32(const float* x, float mean, float rstd, const float* w, const float* b, float* y,
                   size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float z = (x[i] - mean) * rstd;
    const float wi = w != nullptr ? w[i] : 1.0f;
    const float bi = b != nullptr ? b[i] : 0.0f;
    y[i] = std::fma(z, wi, bi);
  }
}

double sum_f64(const float* x, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

void row_means(const float* x, size_t rows, size_t n, double divisor, float* y) {
  for (size_t r = 0; r < rows; ++r) y[r] = static_cast<float>(sum_f64(x + r * n, n) / divisor);
}

double sum_sq_dev_f64(const float* x, double mean, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    s += d * d;
  }
  return s;
}

}  // namespace generic

namespace {
bool use_avx2() { return cpu_features().avx2_fma; }
}  // namespace

void unary(const UnaryParams& p, const float* x, float* y, size_t n) {
  use_avx2() ? avx2::unary(p, x, y, n) : generic::unary(p, x, y, n);
}

void binary(const BinaryParams& p, const float* a, size_t sa, const float* b, size_t sb, float* y,
            size_t n) {
  use_avx2() ? avx2::binary(p, a, sa, b, sb, y, n) : generic::binary(p, a, sa, b, sb, y, n);
}

void select(const uint8_t* c, size_t sc, const float* a, size_t sa, const float* b, size_t sb,
            float* y, size_t n) {
  use_avx2() ? avx2::select(c, sc, a, sa, b, sb, y, n) : generic::select(c, sc, a, sa, b, sb, y, n);
}

float max(const float* x, size_t n) { return use_avx2() ? avx2::max(x, n) : generic::max(x, n); }

float exp_shift_sum(const float* x, float shift, float* y, size_t n) {
  return use_avx2() ? avx2::exp_shift_sum(x, shift, y, n) : generic::exp_shift_sum(x, shift, y, n);
}

float exp_shift_sum_nonpositive(const float* x, float shift, float* y, size_t n) {
  return use_avx2() ? avx2::exp_shift_sum_nonpositive(x, shift, y, n)
                    : generic::exp_shift_sum_nonpositive(x, shift, y, n);
}

void affine(const float* x, float scale, float shift, float* y, size_t n) {
  use_avx2() ? avx2::affine(x, scale, shift, y, n) : generic::affine(x, scale, shift, y, n);
}

void normalize(const float* x, double mean, double rstd, const float* w, const float* b, float* y,
               size_t n) {
  use_avx2() ? avx2::normalize(x, mean, rstd, w, b, y, n)
             : generic::normalize(x, mean, rstd, w, b, y, n);
}

void normalize_f32(const float* x, float mean, float rstd, const float* w, const float* b, float* y,
                   size_t n) {
  use_avx2() ? avx2::normalize_f32(x, mean, rstd, w, b, y, n)
             : generic::normalize_f32(x, mean, rstd, w, b, y, n);
}

double sum_f64(const float* x, size_t n) {
  return use_avx2() ? avx2::sum_f64(x, n) : generic::sum_f64(x, n);
}

void row_means(const float* x, size_t rows, size_t n, double divisor, float* y) {
  return use_avx2() ? avx2::row_means(x, rows, n, divisor, y)
                    : generic::row_means(x, rows, n, divisor, y);
}

double sum_sq_dev_f64(const float* x, double mean, size_t n) {
  return use_avx2() ? avx2::sum_sq_dev_f64(x, mean, n) : generic::sum_sq_dev_f64(x, mean, n);
}

}  // namespace opt
}  // namespace etr
