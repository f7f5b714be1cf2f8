// Division family: aten::div (true, "trunc", "floor"), floor_divide,
// remainder (sign follows the divisor, like Python) and fmod (sign follows
// the dividend, like C). Integer division by zero fails with InvalidArgument.
#include <cmath>
#include <type_traits>

#include "kernels/portable/arithmetic.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class DivMode { kTrue, kTrunc, kFloor, kRemainder, kFmod };

// a / b for integers; b != 0 (callers check). b == -1 is special-cased:
// INT_MIN / -1 overflows (UB in C++), PyTorch wraps.
template <DivMode M, typename T>
T int_divide(T a, T b) {
  if constexpr (std::is_signed<T>::value) {
    if (b == T(-1)) return (M == DivMode::kRemainder || M == DivMode::kFmod) ? T(0) : neg_wrap(a);
  }
  const T q = static_cast<T>(a / b);
  const T r = static_cast<T>(a % b);
  if constexpr (M == DivMode::kFmod) {
    return r;
  } else if constexpr (M == DivMode::kRemainder || M == DivMode::kFloor) {
    bool adjust = false;
    if constexpr (std::is_signed<T>::value) adjust = r != 0 && ((r < 0) != (b < 0));
    if constexpr (M == DivMode::kRemainder) {
      return adjust ? static_cast<T>(r + b) : r;
    } else {
      return adjust ? static_cast<T>(q - 1) : q;
    }
  } else {
    return q;
  }
}

template <typename T>
T float_floor_divide(T a, T b) {
  if (b == T(0)) return a / b;  // +-inf or nan, as PyTorch
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T floor_div = std::floor(div);
  if (div - floor_div > T(0.5)) floor_div += T(1);
  return floor_div;
}

template <DivMode M, typename T>
T float_divide(T a, T b) {
  if constexpr (M == DivMode::kTrunc) {
    return std::trunc(a / b);
  } else if constexpr (M == DivMode::kFloor) {
    return float_floor_divide(a, b);
  } else if constexpr (M == DivMode::kFmod) {
    return std::fmod(a, b);
  } else if constexpr (M == DivMode::kRemainder) {
    const T mod = std::fmod(a, b);
    return (mod != T(0) && ((b < T(0)) != (mod < T(0)))) ? mod + b : mod;
  } else {
    return a / b;
  }
}

template <DivMode M>
struct DivideFn {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      return float_divide<M>(a, b);
    } else {
      return int_divide<M>(a, b);
    }
  }
};

// The dtype each mode computes in: true division promotes integers and bool
// to Float; the others keep the promoted dtype (never bool: prepare refuses).
ScalarType div_compute_type(DivMode mode, ScalarType common) {
  return mode == DivMode::kTrue ? float_compute_type(common) : common;
}

// Reads rounding_mode (None, "trunc" or "floor"); false for anything else.
bool parse_rounding_mode(const std::optional<StringView>& rounding_mode, DivMode* mode) {
  if (!rounding_mode.has_value()) {
    *mode = DivMode::kTrue;
  } else if (*rounding_mode == StringView("trunc")) {
    *mode = DivMode::kTrunc;
  } else if (*rounding_mode == StringView("floor")) {
    *mode = DivMode::kFloor;
  } else {
    return false;
  }
  return true;
}

// Calls fn(std::integral_constant<DivMode, m>{}) for the rounding mode m the
// optional string names (the caller's prepare step refused other strings).
template <typename Fn>
bool with_rounding_mode(const std::optional<StringView>& rounding_mode, Fn&& fn) {
  DivMode mode = DivMode::kTrue;
  if (!parse_rounding_mode(rounding_mode, &mode)) return false;
  if (mode == DivMode::kTrue) {
    fn(std::integral_constant<DivMode, DivMode::kTrue>{});
  } else if (mode == DivMode::kTrunc) {
    fn(std::integral_constant<DivMode, DivMode::kTrunc>{});
  } else {
    fn(std::integral_constant<DivMode, DivMode::kFloor>{});
  }
  return true;
}

template <DivMode mode>
void div_tensor(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const Tensor* ins[] = {&self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  const ScalarType common = div_compute_type(mode, result_type(self, other));
  bool zero_divisor = false;
  ETR_KERNEL_TRY(
      ctx, dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
        using CT = typename decltype(tag)::type;
        if (std::is_integral<CT>::value && contains_zero_as<CT>(other)) {
          zero_divisor = true;
          return true;
        }
        return apply_elementwise(out, DivideFn<mode>(), read_as<CT>(self), read_as<CT>(other));
      }));
  ETR_KERNEL_CHECK(ctx, !zero_divisor, Error::InvalidArgument, "%s: integer division by zero",
                   ctx.op_name());
}

template <DivMode mode>
void div_scalar(KernelContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const ScalarType common = div_compute_type(mode, result_type(self, other));
  bool zero_divisor = false;
  ETR_KERNEL_TRY(ctx,
                 dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const CT y = scalar_to<CT>(other);
                   if (std::is_integral<CT>::value && y == CT(0)) {
                     zero_divisor = true;
                     return true;
                   }
                   return apply_elementwise(
                       out, [y](CT x) { return DivideFn<mode>()(x, y); }, read_as<CT>(self));
                 }));
  ETR_KERNEL_CHECK(ctx, !zero_divisor, Error::InvalidArgument, "%s: integer division by zero",
                   ctx.op_name());
}

}  // namespace

Error div_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return binary_float_prepare(ctx, self, other, out);
}

Error div_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  return check_can_cast(ctx.op_name(), float_compute_type(result_type(self, other)), out);
}

Error div_mode_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                       std::optional<StringView> rounding_mode, Tensor& out) {
  DivMode mode = DivMode::kTrue;
  if (!parse_rounding_mode(rounding_mode, &mode)) {
    ETR_FAIL(Error::InvalidArgument,
             "%s: rounding_mode must be None, 'trunc' or 'floor', got '%.*s'", ctx.op_name(),
             static_cast<int>(rounding_mode->size()), rounding_mode->data());
  }
  if (mode == DivMode::kTrue) return binary_float_prepare(ctx, self, other, out);
  return binary_real_prepare(ctx, self, other, out);
}

void div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  div_tensor<DivMode::kTrue>(ctx, self, other, out);
}

void div_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  div_scalar<DivMode::kTrue>(ctx, self, other, out);
}

void div_out_mode(KernelContext& ctx, const Tensor& self, const Tensor& other,
                  std::optional<StringView> rounding_mode, Tensor& out) {
  const bool known = with_rounding_mode(
      rounding_mode, [&](auto m) { div_tensor<decltype(m)::value>(ctx, self, other, out); });
  ETR_KERNEL_CHECK(ctx, known, Error::Internal, "%s: unknown rounding_mode (prepare refuses it)",
                   ctx.op_name());
}

Error div_scalar_mode_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                              std::optional<StringView> rounding_mode, Tensor& out) {
  DivMode mode = DivMode::kTrue;
  if (!parse_rounding_mode(rounding_mode, &mode)) {
    ETR_FAIL(Error::InvalidArgument,
             "%s: rounding_mode must be None, 'trunc' or 'floor', got '%.*s'", ctx.op_name(),
             static_cast<int>(rounding_mode->size()), rounding_mode->data());
  }
  if (mode == DivMode::kTrue) return div_scalar_prepare(ctx, self, other, out);
  return binary_real_scalar_prepare(ctx, self, other, out);
}

void div_scalar_mode_out(KernelContext& ctx, const Tensor& self, Scalar other,
                         std::optional<StringView> rounding_mode, Tensor& out) {
  const bool known = with_rounding_mode(
      rounding_mode, [&](auto m) { div_scalar<decltype(m)::value>(ctx, self, other, out); });
  ETR_KERNEL_CHECK(ctx, known, Error::Internal, "%s: unknown rounding_mode (prepare refuses it)",
                   ctx.op_name());
}

void floor_divide_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  div_tensor<DivMode::kFloor>(ctx, self, other, out);
}

void remainder_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out) {
  div_tensor<DivMode::kRemainder>(ctx, self, other, out);
}

void remainder_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  div_scalar<DivMode::kRemainder>(ctx, self, other, out);
}

void fmod_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  div_tensor<DivMode::kFmod>(ctx, self, other, out);
}

void fmod_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  div_scalar<DivMode::kFmod>(ctx, self, other, out);
}

}  // namespace etr
