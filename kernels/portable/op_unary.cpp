// Unary ops that keep the input's dtype (neg, abs, rounding, sign,
// bitwise_not) and predicates (logical_not, isnan, isinf) whose out may have
// any dtype.
#include <cmath>
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class Domain { kRealAndBool, kReal, kIntegralAndBool };

Error check_domain(const char* op, Domain domain, ScalarType t) {
  if (domain == Domain::kReal && t == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: not supported for bool inputs", op);
  }
  if (domain == Domain::kIntegralAndBool && is_floating(t)) {
    ETR_FAIL(Error::InvalidType, "%s: not supported for floating inputs (got %s)", op,
             to_string(t));
  }
  return Error::Ok;
}

// out = fn(self) computed in self's dtype, then cast to out.
template <typename Fn>
void unary_same_type(KernelContext& ctx, const char* op, Domain domain, const Tensor& self,
                     Tensor& out, Fn fn) {
  if (!kernel_ok(ctx, prepare_unary(op, self, out))) return;
  if (!kernel_ok(ctx, check_domain(op, domain, self.dtype()))) return;
  if (!kernel_ok(ctx, check_can_cast(op, self.dtype(), out))) return;
  dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, [fn](CT x) -> CT { return fn(x); }, read_as<CT>(self));
  });
}

// out = pred(self) as bool, cast to out's dtype (which may be anything).
template <typename Pred>
void unary_predicate(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out,
                     Pred pred) {
  if (!kernel_ok(ctx, prepare_unary(op, self, out))) return;
  dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, [pred](CT x) -> bool { return pred(x); }, read_as<CT>(self));
  });
}

// Applies a floating rounding function; integers pass through unchanged.
template <typename Fn>
auto round_with(Fn fn) {
  return [fn](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return fn(x);
    } else {
      return x;
    }
  };
}

}  // namespace

void neg_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_same_type(ctx, "aten::neg.out", Domain::kReal, self, out,
                  [](auto x) { return neg_wrap(x); });
}

void abs_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_same_type(ctx, "aten::abs.out", Domain::kReal, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point<T>::value) {
      return std::fabs(x);
    } else if constexpr (std::is_signed<T>::value) {
      return x < T(0) ? neg_wrap(x) : x;
    } else {
      return x;
    }
  });
}

void ceil_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_same_type(ctx, "aten::ceil.out", Domain::kReal, self, out,
                  round_with([](auto x) { return std::ceil(x); }));
}

void floor_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_same_type(ctx, "aten::floor.out", Domain::kReal, self, out,
                  round_with([](auto x) { return std::floor(x); }));
}

void round_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // Half to even, as PyTorch (nearbyint in the default rounding mode).
  unary_same_type(ctx, "aten::round.out", Domain::kReal, self, out,
                  round_with([](auto x) { return std::nearbyint(x); }));
}

void trunc_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_same_type(ctx, "aten::trunc.out", Domain::kReal, self, out,
                  round_with([](auto x) { return std::trunc(x); }));
}

void sign_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // NaN gives 0, as PyTorch.
  unary_same_type(ctx, "aten::sign.out", Domain::kRealAndBool, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value) {
      return x;
    } else {
      return static_cast<T>((T(0) < x) - (x < T(0)));
    }
  });
}

void bitwise_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_same_type(ctx, "aten::bitwise_not.out", Domain::kIntegralAndBool, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value) {
      return !x;
    } else if constexpr (std::is_integral<T>::value) {
      return static_cast<T>(~x);
    } else {
      return x;  // unreachable: floating inputs are rejected
    }
  });
}

void logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_predicate(ctx, "aten::logical_not.out", self, out, [](auto x) { return x == 0; });
}

void isnan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_predicate(ctx, "aten::isnan.out", self, out, [](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return std::isnan(x);
    } else {
      return false;
    }
  });
}

void isinf_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_predicate(ctx, "aten::isinf.out", self, out, [](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return std::isinf(x);
    } else {
      return false;
    }
  });
}

}  // namespace etr
