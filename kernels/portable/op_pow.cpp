// aten::pow: Tensor ** Tensor, Tensor ** Scalar and Scalar ** Tensor in the
// promoted dtype (never bool). Integer powers wrap; negative integer
// exponents follow PyTorch.
#include <cmath>
#include <type_traits>

#include "kernels/portable/arithmetic.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Integer power with wrapping. Negative exponents: 1 and -1 keep their
// magnitude, every other base gives 0.
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

}  // namespace

Error pow_scalar_prepare(KernelPrepareContext& ctx, Scalar self, const Tensor& exponent,
                         Tensor& out) {
  return binary_real_scalar_prepare(ctx, exponent, self, out);
}

void pow_tensor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& exponent,
                           Tensor& out) {
  const Tensor* ins[] = {&self, &exponent};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  const ScalarType common = result_type(self, exponent);
  ETR_KERNEL_TRY(ctx,
                 dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   return apply_elementwise(out, PowFn(), read_as<CT>(self), read_as<CT>(exponent));
                 }));
}

void pow_tensor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar exponent, Tensor& out) {
  const ScalarType common = result_type(self, exponent);
  // The exponent's value may come from the program (a symbolic int), so it
  // is checked here rather than in prepare.
  ETR_KERNEL_CHECK(ctx,
                   !(is_integral(common, false) && exponent.is_integral() && exponent.to_int() < 0),
                   Error::InvalidArgument,
                   "%s: integers to negative integer powers are not allowed", ctx.op_name());
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(ctx,
                 dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const CT e = scalar_to<CT>(exponent);
                   return apply_elementwise(
                       out, [e](CT x) { return PowFn()(x, e); }, read_as<CT>(self));
                 }));
}

void pow_scalar_out(KernelContext& ctx, Scalar self, const Tensor& exponent, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, exponent.sizes()));
  const ScalarType common = result_type(exponent, self);
  ETR_KERNEL_TRY(ctx,
                 dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const CT base = scalar_to<CT>(self);
                   return apply_elementwise(
                       out, [base](CT e) { return PowFn()(base, e); }, read_as<CT>(exponent));
                 }));
}

}  // namespace etr
