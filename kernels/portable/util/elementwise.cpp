#include "kernels/portable/util/elementwise.h"

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

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
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

Error check_dtype(const char* op, const char* what, const Tensor& t) {
  if (!is_supported_dtype(t.dtype())) {
    ETR_FAIL(Error::InvalidType, "%s: %s has unsupported dtype %s", op, what,
             to_string(t.dtype()));
  }
  return Error::Ok;
}

Error check_can_cast(const char* op, ScalarType common, const Tensor& out) {
  if (!can_cast(common, out.dtype())) {
    ETR_FAIL(Error::InvalidType, "%s: result type %s can't be cast to the out dtype %s", op,
             to_string(common), to_string(out.dtype()));
  }
  return Error::Ok;
}

Error prepare_binary(const char* op, const Tensor& a, const Tensor& b, Tensor& out,
                     ScalarType* common) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "self", a));
  ETR_RETURN_IF_ERROR(check_dtype(op, "other", b));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out));
  const Tensor* ins[] = {&a, &b};
  ETR_RETURN_IF_ERROR(resize_to_broadcast(op, out, ins));
  *common = result_type(a, b);
  return Error::Ok;
}

Error prepare_scalar(const char* op, const Tensor& a, const Scalar& s, Tensor& out,
                     ScalarType* common) {
  ETR_RETURN_IF_ERROR(prepare_unary(op, a, out));
  *common = result_type(a, s);
  return Error::Ok;
}

Error prepare_unary(const char* op, const Tensor& a, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "self", a));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out));
  return resize_like(op, out, a);
}

Error normalize_dim(const char* op, int64_t dim, size_t rank, size_t* out) {
  const int64_t r = rank == 0 ? 1 : static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) {
    ETR_FAIL(Error::InvalidArgument, "%s: dim %lld is out of range for a tensor of rank %zu", op,
             static_cast<long long>(dim), rank);
  }
  *out = static_cast<size_t>(dim < 0 ? dim + r : dim);
  return Error::Ok;
}

}  // namespace etr
