#include "kernels/portable/util/elementwise.h"

#include <algorithm>

#include "kernels/portable/util/elementwise_prepare.h"

namespace etr {

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  if (is_floating(a) || is_floating(b)) {
    return (a == ScalarType::Double || b == ScalarType::Double) ? ScalarType::Double
                                                                : ScalarType::Float;
  }
  if (a == ScalarType::Byte || b == ScalarType::Byte) {
    const ScalarType other = a == ScalarType::Byte ? b : a;
    return other == ScalarType::Char ? ScalarType::Short : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

ScalarType scalar_dtype(const Scalar& s) {
  if (s.is_bool()) return ScalarType::Bool;
  return s.is_floating() ? ScalarType::Double : ScalarType::Long;
}

namespace {

void accumulate(std::optional<ScalarType>& slot, ScalarType t) {
  slot = slot.has_value() ? promote_types(*slot, t) : t;
}

// Merges the result of a higher-priority group with a lower-priority one.
std::optional<ScalarType> combine(std::optional<ScalarType> higher,
                                  std::optional<ScalarType> lower) {
  if (!higher.has_value()) return lower;
  if (!lower.has_value() || is_floating(*higher)) return higher;
  if (*higher == ScalarType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace

ResultType& ResultType::add(const Tensor& t) {
  accumulate(t.dim() == 0 ? zero_dim_ : dim_, t.dtype());
  return *this;
}

ResultType& ResultType::add(const Scalar& s) {
  // A Python float takes the default dtype (Float) in promotion.
  accumulate(scalar_, s.is_floating() ? ScalarType::Float : scalar_dtype(s));
  return *this;
}

ScalarType ResultType::get() const {
  const std::optional<ScalarType> r = combine(dim_, combine(zero_dim_, scalar_));
  return r.has_value() ? *r : ScalarType::Float;
}

Error check_not_bool(const char* op, ScalarType common) {
  if (common == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: not supported for a bool result type", op);
  }
  return Error::Ok;
}

Error check_integral_or_bool(const char* op, ScalarType common) {
  if (!is_integral(common, /*include_bool=*/true)) {
    ETR_FAIL(Error::InvalidType, "%s: only integer and bool inputs are supported, got %s", op,
             to_string(common));
  }
  return Error::Ok;
}

// ---- Shared prepare steps (elementwise_prepare.h)

Error binary_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                     Tensor& out) {
  return check_can_cast(ctx.op_name(), result_type(self, other), out);
}

Error binary_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                            Tensor& out) {
  return check_can_cast(ctx.op_name(), result_type(self, other), out);
}

Error binary_real_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out) {
  const ScalarType common = result_type(self, other);
  ETR_RETURN_IF_ERROR(check_not_bool(ctx.op_name(), common));
  return check_can_cast(ctx.op_name(), common, out);
}

Error binary_real_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                                 Tensor& out) {
  const ScalarType common = result_type(self, other);
  ETR_RETURN_IF_ERROR(check_not_bool(ctx.op_name(), common));
  return check_can_cast(ctx.op_name(), common, out);
}

Error binary_float_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out) {
  return check_can_cast(ctx.op_name(), float_compute_type(result_type(self, other)), out);
}

Error binary_bitwise_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out) {
  const ScalarType common = result_type(self, other);
  ETR_RETURN_IF_ERROR(check_integral_or_bool(ctx.op_name(), common));
  return check_can_cast(ctx.op_name(), common, out);
}

Error binary_bitwise_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                                    Tensor& out) {
  const ScalarType common = result_type(self, other);
  ETR_RETURN_IF_ERROR(check_integral_or_bool(ctx.op_name(), common));
  return check_can_cast(ctx.op_name(), common, out);
}

Error unary_real_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_not_bool(ctx.op_name(), self.dtype()));
  return check_can_cast(ctx.op_name(), self.dtype(), out);
}

Error unary_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return check_can_cast(ctx.op_name(), self.dtype(), out);
}

Error unary_bitwise_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_integral_or_bool(ctx.op_name(), self.dtype()));
  return check_can_cast(ctx.op_name(), self.dtype(), out);
}

Error unary_float_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return check_can_cast(ctx.op_name(), float_compute_type(self.dtype()), out);
}

Error binary_predicate_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, std::max(self.dim(), other.dim()));
}

Error binary_scalar_predicate_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar,
                                      Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, self.dim());
}

Error unary_predicate_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, self.dim());
}

}  // namespace etr
