// Division family: aten::div (true, "trunc", "floor"), floor_divide,
// remainder (sign follows the divisor, like Python) and fmod (sign follows
// the dividend, like C). Integer division by zero fails with InvalidArgument.
#include <cmath>
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
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

// True division computes in floating point (integers promote to Float);
// rounding modes keep the promoted dtype, which must not be bool.
Error resolve_div_type(const char* op, DivMode mode, ScalarType* common) {
  if (mode == DivMode::kTrue) {
    if (!is_floating(*common)) *common = ScalarType::Float;
    return Error::Ok;
  }
  if (*common == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: not supported for bool inputs", op);
  }
  return Error::Ok;
}

template <DivMode mode>
void div_tensor(KernelContext& ctx, const char* op, const Tensor& self,
                const Tensor& other, Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(op, self, other, out, &common))) return;
  if (!kernel_ok(ctx, resolve_div_type(op, mode, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(op, common, out))) return;
  bool zero_divisor = false;
  dispatch_real(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    if (std::is_integral<CT>::value && contains_zero_as<CT>(other)) {
      zero_divisor = true;
      return;
    }
    apply_elementwise(out, DivideFn<mode>(), read_as<CT>(self), read_as<CT>(other));
  });
  ETR_KERNEL_CHECK(ctx, !zero_divisor, Error::InvalidArgument, "%s: integer division by zero", op);
}

template <DivMode mode>
void div_scalar(KernelContext& ctx, const char* op, const Tensor& self,
                const Scalar& other, Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(op, self, other, out, &common))) return;
  if (!kernel_ok(ctx, resolve_div_type(op, mode, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(op, common, out))) return;
  bool zero_divisor = false;
  dispatch_real(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT y = scalar_to<CT>(other);
    if (std::is_integral<CT>::value && y == CT(0)) {
      zero_divisor = true;
      return;
    }
    apply_elementwise(out, [y](CT x) { return DivideFn<mode>()(x, y); }, read_as<CT>(self));
  });
  ETR_KERNEL_CHECK(ctx, !zero_divisor, Error::InvalidArgument, "%s: integer division by zero", op);
}

}  // namespace

void div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  div_tensor<DivMode::kTrue>(ctx, "aten::div.out", self, other, out);
}

void div_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  div_scalar<DivMode::kTrue>(ctx, "aten::div.Scalar_out", self, other, out);
}

void div_out_mode(KernelContext& ctx, const Tensor& self, const Tensor& other,
                  std::optional<StringView> rounding_mode, Tensor& out) {
  constexpr const char* kOp = "aten::div.out_mode";
  if (!rounding_mode.has_value()) {
    div_tensor<DivMode::kTrue>(ctx, kOp, self, other, out);
  } else if (*rounding_mode == StringView("trunc")) {
    div_tensor<DivMode::kTrunc>(ctx, kOp, self, other, out);
  } else if (*rounding_mode == StringView("floor")) {
    div_tensor<DivMode::kFloor>(ctx, kOp, self, other, out);
  } else {
    ETR_LOG(Error, "%s: rounding_mode must be None, 'trunc' or 'floor', got '%.*s'", kOp,
            static_cast<int>(rounding_mode->size()), rounding_mode->data());
    ctx.fail(Error::InvalidArgument);
  }
}

void floor_divide_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  div_tensor<DivMode::kFloor>(ctx, "aten::floor_divide.out", self, other, out);
}

void remainder_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out) {
  div_tensor<DivMode::kRemainder>(ctx, "aten::remainder.Tensor_out", self, other, out);
}

void remainder_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  div_scalar<DivMode::kRemainder>(ctx, "aten::remainder.Scalar_out", self, other, out);
}

void fmod_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  div_tensor<DivMode::kFmod>(ctx, "aten::fmod.Tensor_out", self, other, out);
}

void fmod_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  div_scalar<DivMode::kFmod>(ctx, "aten::fmod.Scalar_out", self, other, out);
}

}  // namespace etr
