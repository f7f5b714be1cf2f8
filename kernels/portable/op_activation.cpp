// Activations and clamping: relu, gelu, hardtanh, leaky_relu, elu, clamp
// (Scalar and Tensor bounds). NaN inputs stay NaN.
#include <cmath>
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// NaN-propagating max(x, lo) / min(x, hi).
template <typename T>
T max_nan(T x, T lo) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(x) || std::isnan(lo)) return std::isnan(x) ? x : lo;
  }
  return x < lo ? lo : x;
}
template <typename T>
T min_nan(T x, T hi) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(x) || std::isnan(hi)) return std::isnan(x) ? x : hi;
  }
  return hi < x ? hi : x;
}

Error check_not_bool(const char* op, ScalarType t) {
  if (t == ScalarType::Bool) ETR_FAIL(Error::InvalidType, "%s: bool inputs are not supported", op);
  return Error::Ok;
}

Error check_floating(const char* op, ScalarType t) {
  if (!is_floating(t)) {
    ETR_FAIL(Error::InvalidType, "%s: expected a floating input, got %s", op, to_string(t));
  }
  return Error::Ok;
}

// out = fn(self) computed in self's dtype; `floating_only` rejects integers.
template <typename Fn>
void activation(KernelContext& ctx, const char* op, bool floating_only, const Tensor& self,
                Tensor& out, Fn fn) {
  if (!kernel_ok(ctx, prepare_unary(op, self, out))) return;
  if (!kernel_ok(ctx, check_not_bool(op, self.dtype()))) return;
  if (floating_only && !kernel_ok(ctx, check_floating(op, self.dtype()))) return;
  if (!kernel_ok(ctx, check_can_cast(op, self.dtype(), out))) return;
  dispatch_real(self.dtype(), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, fn(tag), read_as<CT>(self));
  });
}

template <typename T>
T gelu(T x, bool tanh_approx) {
  if (tanh_approx) {
    const T k_beta = static_cast<T>(0.7978845608028654);  // sqrt(2 / pi)
    const T inner = k_beta * (x + static_cast<T>(0.044715) * x * x * x);
    return static_cast<T>(0.5) * x * (T(1) + std::tanh(inner));
  }
  return static_cast<T>(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.7071067811865476)));
}

}  // namespace

void relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  activation(ctx, "aten::relu.out", false, self, out, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) { return x < T(0) ? T(0) : x; };
  });
}

void gelu_out(KernelContext& ctx, const Tensor& self, StringView approximate, Tensor& out) {
  constexpr const char* kOp = "aten::gelu.out";
  const bool tanh_approx = approximate == StringView("tanh");
  ETR_KERNEL_CHECK(ctx, tanh_approx || approximate == StringView("none"), Error::InvalidArgument,
                   "%s: approximate must be 'none' or 'tanh', got '%.*s'", kOp,
                   static_cast<int>(approximate.size()), approximate.data());
  activation(ctx, kOp, true, self, out, [tanh_approx](auto tag) {
    using T = typename decltype(tag)::type;
    return [tanh_approx](T x) { return gelu(x, tanh_approx); };
  });
}

void hardtanh_out(KernelContext& ctx, const Tensor& self, Scalar min_val, Scalar max_val,
                  Tensor& out) {
  activation(ctx, "aten::hardtanh.out", false, self, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = scalar_to<T>(min_val);
    const T hi = scalar_to<T>(max_val);
    return [lo, hi](T x) { return min_nan(max_nan(x, lo), hi); };
  });
}

void leaky_relu_out(KernelContext& ctx, const Tensor& self, Scalar negative_slope, Tensor& out) {
  activation(ctx, "aten::leaky_relu.out", true, self, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T slope = scalar_to<T>(negative_slope);
    return [slope](T x) { return x > T(0) ? x : x * slope; };
  });
}

void elu_out(KernelContext& ctx, const Tensor& self, Scalar alpha, Scalar scale,
             Scalar input_scale, Tensor& out) {
  activation(ctx, "aten::elu.out", true, self, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T neg_coef = scalar_to<T>(alpha) * scalar_to<T>(scale);
    const T pos_coef = scalar_to<T>(scale);
    const T in_coef = scalar_to<T>(input_scale);
    return [=](T x) { return x <= T(0) ? std::expm1(x * in_coef) * neg_coef : x * pos_coef; };
  });
}

void clamp_out(KernelContext& ctx, const Tensor& self, std::optional<Scalar> min,
               std::optional<Scalar> max, Tensor& out) {
  constexpr const char* kOp = "aten::clamp.out";
  ETR_KERNEL_CHECK(ctx, min.has_value() || max.has_value(), Error::InvalidArgument,
                   "%s: at least one of 'min' or 'max' must not be None", kOp);
  if (!kernel_ok(ctx, prepare_unary(kOp, self, out))) return;
  ResultType rt;
  rt.add(self);
  if (min.has_value()) rt.add(*min);
  if (max.has_value()) rt.add(*max);
  const ScalarType common = rt.get();
  if (!kernel_ok(ctx, check_not_bool(kOp, common))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  dispatch_real(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const bool has_lo = min.has_value();
    const bool has_hi = max.has_value();
    const CT lo = has_lo ? scalar_to<CT>(*min) : CT(0);
    const CT hi = has_hi ? scalar_to<CT>(*max) : CT(0);
    apply_elementwise(out, [=](CT x) {
      if (has_lo) x = max_nan(x, lo);
      return has_hi ? min_nan(x, hi) : x;
    }, read_as<CT>(self));
  });
}

void clamp_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor* min,
                      const Tensor* max, Tensor& out) {
  constexpr const char* kOp = "aten::clamp.Tensor_out";
  ETR_KERNEL_CHECK(ctx, min != nullptr || max != nullptr, Error::InvalidArgument,
                   "%s: at least one of 'min' or 'max' must not be None", kOp);
  const Tensor* ins[3] = {&self, min != nullptr ? min : max, max};
  const size_t n = (min != nullptr && max != nullptr) ? 3 : 2;
  for (size_t i = 0; i < n; ++i) {
    if (!kernel_ok(ctx, check_dtype(kOp, i == 0 ? "self" : "bound", *ins[i]))) return;
  }
  if (!kernel_ok(ctx, check_dtype(kOp, "out", out))) return;
  if (!kernel_ok(ctx, resize_to_broadcast(kOp, out, Span<const Tensor* const>(ins, n)))) return;
  ResultType rt;
  for (size_t i = 0; i < n; ++i) rt.add(*ins[i]);
  const ScalarType common = rt.get();
  if (!kernel_ok(ctx, check_not_bool(kOp, common))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  dispatch_real(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    if (n == 3) {
      apply_elementwise(out, [](CT x, CT lo, CT hi) { return min_nan(max_nan(x, lo), hi); },
                        read_as<CT>(self), read_as<CT>(*min), read_as<CT>(*max));
    } else if (min != nullptr) {
      apply_elementwise(out, [](CT x, CT lo) { return max_nan(x, lo); }, read_as<CT>(self),
                        read_as<CT>(*min));
    } else {
      apply_elementwise(out, [](CT x, CT hi) { return min_nan(x, hi); }, read_as<CT>(self),
                        read_as<CT>(*max));
    }
  });
}

}  // namespace etr
