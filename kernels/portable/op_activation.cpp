// Activations: relu, gelu, hardtanh, leaky_relu, elu, computed in self's
// dtype (gelu, leaky_relu, elu: floating only) and cast to out. NaN inputs
// stay NaN.
#include <cmath>
#include <type_traits>

#include "kernels/portable/activation.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Prepare of a floating-only activation.
Error check_floating_activation(const char* op, const Tensor& self, const Tensor& out) {
  if (!is_floating(self.dtype())) {
    ETR_FAIL(Error::InvalidType, "%s: expected a floating input, got %s", op,
             to_string(self.dtype()));
  }
  return check_can_cast(op, self.dtype(), out);
}

// out = make_fn(tag)(self) computed in self's (real) dtype.
template <typename MakeFn>
void activation(KernelContext& ctx, const Tensor& self, Tensor& out, MakeFn make_fn) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(
      ctx, dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), self.dtype(), [&](auto tag) {
        using CT = typename decltype(tag)::type;
        return apply_elementwise(out, make_fn(tag), read_as<CT>(self));
      }));
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
  activation(ctx, self, out, [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x) { return x < T(0) ? T(0) : x; };
  });
}

Error gelu_prepare(KernelPrepareContext& ctx, const Tensor& self, StringView approximate,
                   Tensor& out) {
  if (!(approximate == StringView("tanh") || approximate == StringView("none"))) {
    ETR_FAIL(Error::InvalidArgument, "%s: approximate must be 'none' or 'tanh', got '%.*s'",
             ctx.op_name(), static_cast<int>(approximate.size()), approximate.data());
  }
  return check_floating_activation(ctx.op_name(), self, out);
}

void gelu_out(KernelContext& ctx, const Tensor& self, StringView approximate, Tensor& out) {
  const bool tanh_approx = approximate == StringView("tanh");
  activation(ctx, self, out, [tanh_approx](auto tag) {
    using T = typename decltype(tag)::type;
    return [tanh_approx](T x) -> T { return gelu(x, tanh_approx); };
  });
}

Error hardtanh_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar, Scalar, Tensor& out) {
  return unary_real_prepare(ctx, self, out);
}

void hardtanh_out(KernelContext& ctx, const Tensor& self, Scalar min_val, Scalar max_val,
                  Tensor& out) {
  activation(ctx, self, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral<T>::value) {
      // Integer inputs: PyTorch truncates both bounds to integers and clamps
      // without converting them to T first (uint8 with min -1.5 clamps at
      // -1, not at 255).
      const int64_t lo = scalar_to<int64_t>(min_val);
      const int64_t hi = scalar_to<int64_t>(max_val);
      return [lo, hi](T x) {
        int64_t v = static_cast<int64_t>(x);
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
        return static_cast<T>(v);
      };
    } else {
      const T lo = scalar_to<T>(min_val);
      const T hi = scalar_to<T>(max_val);
      return [lo, hi](T x) { return min_propagate_nan(max_propagate_nan(x, lo), hi); };
    }
  });
}

Error leaky_relu_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar, Tensor& out) {
  return check_floating_activation(ctx.op_name(), self, out);
}

void leaky_relu_out(KernelContext& ctx, const Tensor& self, Scalar negative_slope, Tensor& out) {
  activation(ctx, self, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T slope = scalar_to<T>(negative_slope);
    return [slope](T x) -> T { return x > T(0) ? x : x * slope; };
  });
}

Error elu_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar, Scalar, Scalar,
                  Tensor& out) {
  return check_floating_activation(ctx.op_name(), self, out);
}

void elu_out(KernelContext& ctx, const Tensor& self, Scalar alpha, Scalar scale, Scalar input_scale,
             Tensor& out) {
  activation(ctx, self, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T neg_coef = scalar_to<T>(alpha) * scalar_to<T>(scale);
    const T pos_coef = scalar_to<T>(scale);
    const T in_coef = scalar_to<T>(input_scale);
    return [=](T x) -> T { return x <= T(0) ? std::expm1(x * in_coef) * neg_coef : x * pos_coef; };
  });
}

}  // namespace etr
