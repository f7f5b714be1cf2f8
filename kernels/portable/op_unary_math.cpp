// Unary floating-point math: sqrt, rsqrt, exp, expm1, log, log1p, log2,
// log10, sin, cos, tan, tanh, sigmoid, erf, reciprocal, the inverse and
// hyperbolic trigonometric functions, and logit. Integer and bool
// inputs compute in Float (PyTorch's int-to-float promotion); out must be
// floating (checked by unary_float_prepare).
#include <cmath>
#include <optional>

#include "kernels/portable/unary.h"
#include "kernels/portable/util/elementwise.h"
#include "runtime/core/half.h"

namespace etr {
namespace {

// out = fn(self) computed in float_compute_type(self) (prepare:
// unary_float_prepare).
template <typename Fn>
void unary_float(KernelContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const ScalarType common = float_compute_type(self.dtype());
  ETR_KERNEL_TRY(
      ctx, dispatch_elementwise<ComputeTypes::kFloating>(ctx.op_name(), common, [&](auto tag) {
        using CT = typename decltype(tag)::type;
        return apply_elementwise(
            out, [fn](CT x) -> CT { return fn(x); }, read_as<CT>(self));
      }));
}

}  // namespace

void sqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::sqrt(x); });
}

void rsqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}

void exp_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::exp(x); });
}

void expm1_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::expm1(x); });
}

void log_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log(x); });
}

void log1p_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log1p(x); });
}

void log2_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log2(x); });
}

void log10_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log10(x); });
}

void sin_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::sin(x); });
}

void cos_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::cos(x); });
}

void tan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::tan(x); });
}

void tanh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::tanh(x); });
}

void sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

void erf_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::erf(x); });
}

void reciprocal_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / x;
  });
}

void acos_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::acos(x); });
}

void asin_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::asin(x); });
}

void atan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::atan(x); });
}

void acosh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::acosh(x); });
}

void asinh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::asinh(x); });
}

void atanh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::atanh(x); });
}

void sinh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::sinh(x); });
}

void cosh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::cosh(x); });
}

Error logit_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<double>,
                    Tensor& out) {
  if (self.dtype() == ScalarType::Half || self.dtype() == ScalarType::BFloat16) {
    return check_dtype(ctx.op_name(), "out", out, self.dtype());
  }
  return unary_float_prepare(ctx, self, out);
}

namespace {

// Half / BFloat16 (R): PyTorch rounds eps to R and computes 1 - eps in R
// (bfloat16 1 - 1e-3 is 1.0, so x = 1 gives inf); 1 - x and the quotient
// are rounded to R too (PyTorch's scalar arithmetic in R), the log is taken
// in float and rounded.
template <typename R>
void logit_reduced(const Tensor& self, bool clamp, double eps, Tensor& out) {
  const float lo = static_cast<float>(R(static_cast<float>(eps)));
  const float hi = static_cast<float>(R(1.0f - lo));
  const R* x = self.const_data_ptr<R>();
  R* y = out.data_ptr<R>();
  int64_t strides[2][kTensorMaxDim];
  broadcast_strides(out, out.sizes(), strides[0]);
  broadcast_strides(self, out.sizes(), strides[1]);
  for_each_offset<2>(out.sizes(), strides, [&](const int64_t* off) {
    float v = static_cast<float>(x[off[1]]);
    if (clamp) v = v < lo ? lo : (v > hi ? hi : v);
    const float one_minus = static_cast<float>(R(1.0f - v));
    y[off[0]] = R(std::log(static_cast<float>(R(v / one_minus))));
  });
}

}  // namespace

// log(x / (1 - x)); with eps >= 0, x is first clamped to [eps, 1 - eps]
// (x < eps gives eps, else x > 1 - eps gives 1 - eps, as PyTorch does even
// when eps > 0.5). A negative eps clamps nothing.
void logit_out(KernelContext& ctx, const Tensor& self, std::optional<double> eps, Tensor& out) {
  const bool clamp = eps.has_value() && *eps >= 0.0;
  const double lo = clamp ? *eps : 0.0;
  if (self.dtype() == ScalarType::Half || self.dtype() == ScalarType::BFloat16) {
    ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), self.dtype(), {&out}));
    ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
    if (self.dtype() == ScalarType::Half) {
      logit_reduced<Half>(self, clamp, lo, out);
    } else {
      logit_reduced<BFloat16>(self, clamp, lo, out);
    }
    return;
  }
  unary_float(ctx, self, out, [clamp, lo](auto x) {
    using T = decltype(x);
    if (clamp) {
      const T l = static_cast<T>(lo);
      const T h = T(1) - l;
      x = x < l ? l : (x > h ? h : x);
    }
    return std::log(x / (T(1) - x));
  });
}

}  // namespace etr
