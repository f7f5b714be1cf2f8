// aten::pow (three overloads), maximum, minimum and atan2.
#include <cmath>
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Integer power with wrapping. Negative exponents follow PyTorch: 1 and -1
// keep their magnitude, every other base gives 0.
template <typename T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed<T>::value) {
    if (exp < 0) {
      if (base == T(1)) return T(1);
      if (base == T(-1)) return exp % 2 != 0 ? T(-1) : T(1);
      return T(0);
    }
  }
  T result = T(1);
  while (exp != T(0)) {
    if (exp % 2 != 0) result = mul_wrap(result, base);
    base = mul_wrap(base, base);
    exp = static_cast<T>(exp / 2);
  }
  return result;
}

struct PowFn {
  template <typename T>
  T operator()(T base, T exp) const {
    if constexpr (std::is_floating_point<T>::value) {
      return std::pow(base, exp);
    } else {
      return int_pow(base, exp);
    }
  }
};

// NaN-propagating max / min (bool: or / and).
template <bool kMax>
struct MaxMinFn {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    if constexpr (kMax) {
      return a < b ? b : a;
    } else {
      return b < a ? b : a;
    }
  }
};

struct Atan2Fn {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(std::atan2(a, b));
  }
};

enum class Domain { kRealAndBool, kReal, kFloat };

// Applies the domain rule of a binary op to the promoted dtype: kFloat
// promotes integers and bool to Float, kReal rejects bool.
Error resolve_domain(const char* op, Domain domain, ScalarType* common) {
  if (domain == Domain::kFloat && !is_floating(*common)) *common = ScalarType::Float;
  if (domain == Domain::kReal && *common == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: not supported for bool inputs", op);
  }
  return Error::Ok;
}

template <typename Fn>
void binary_tensor(KernelContext& ctx, const char* op, Domain domain, const Tensor& a,
                   const Tensor& b, Tensor& out, Fn fn) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(op, a, b, out, &common))) return;
  if (!kernel_ok(ctx, resolve_domain(op, domain, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(op, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    // Bool only reaches here for kRealAndBool ops.
    apply_elementwise(out, [fn](CT x, CT y) -> CT { return fn(x, y); }, read_as<CT>(a),
                      read_as<CT>(b));
  });
}

}  // namespace

void pow_tensor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& exponent,
                           Tensor& out) {
  binary_tensor(ctx, "aten::pow.Tensor_Tensor_out", Domain::kReal, self, exponent, out, PowFn());
}

void pow_tensor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar exponent, Tensor& out) {
  constexpr const char* kOp = "aten::pow.Tensor_Scalar_out";
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(kOp, self, exponent, out, &common))) return;
  if (!kernel_ok(ctx, resolve_domain(kOp, Domain::kReal, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  ETR_KERNEL_CHECK(ctx, !(is_integral(common, false) && exponent.is_integral() &&
                          exponent.to_int() < 0),
                   Error::InvalidArgument,
                   "%s: integers to negative integer powers are not allowed", kOp);
  dispatch_real(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT e = scalar_to<CT>(exponent);
    apply_elementwise(out, [e](CT x) { return PowFn()(x, e); }, read_as<CT>(self));
  });
}

void pow_scalar_out(KernelContext& ctx, Scalar self, const Tensor& exponent, Tensor& out) {
  constexpr const char* kOp = "aten::pow.Scalar_out";
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(kOp, exponent, self, out, &common))) return;
  if (!kernel_ok(ctx, resolve_domain(kOp, Domain::kReal, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  dispatch_real(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT base = scalar_to<CT>(self);
    apply_elementwise(out, [base](CT e) { return PowFn()(base, e); }, read_as<CT>(exponent));
  });
}

void maximum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_tensor(ctx, "aten::maximum.out", Domain::kRealAndBool, self, other, out,
                MaxMinFn<true>());
}

void minimum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_tensor(ctx, "aten::minimum.out", Domain::kRealAndBool, self, other, out,
                MaxMinFn<false>());
}

void atan2_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_tensor(ctx, "aten::atan2.out", Domain::kFloat, self, other, out, Atan2Fn());
}

}  // namespace etr
