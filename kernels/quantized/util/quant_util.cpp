#include "kernels/quantized/util/quant_util.h"

#include <cinttypes>
#include <limits>

namespace etr {
namespace {

bool quant_bounds(ScalarType dtype, int64_t* lo, int64_t* hi) {
  return dispatch_quant(dtype, [&](auto tag) {
    using Q = typename decltype(tag)::type;
    *lo = std::numeric_limits<Q>::min();
    *hi = std::numeric_limits<Q>::max();
  });
}

}  // namespace

Error check_quant_dtype(const char* op, const char* what, ScalarType dtype) {
  return check_dtype_in(op, what, dtype, kQuantTypes);
}

Error check_quant_range(const char* op, int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  int64_t lo = 0;
  int64_t hi = 0;
  ETR_CHECK_OR_FAIL(quant_bounds(dtype, &lo, &hi), Error::InvalidType,
                    "%s: dtype %s is not a quantized integer type", op, to_string(dtype));
  ETR_CHECK_OR_FAIL(quant_min <= quant_max && quant_min >= lo && quant_max <= hi,
                    Error::InvalidArgument,
                    "%s: quant range [%" PRId64 ", %" PRId64 "] is empty or outside %s's [%" PRId64
                    ", %" PRId64 "]",
                    op, quant_min, quant_max, to_string(dtype), lo, hi);
  return Error::Ok;
}

Error check_scale(const char* op, const char* what, double scale) {
  ETR_CHECK_OR_FAIL(std::isfinite(scale) && scale > 0, Error::InvalidArgument,
                    "%s: %s %g must be finite and > 0", op, what, scale);
  return Error::Ok;
}

Error check_zero_point(const char* op, const char* what, int64_t zero_point, int64_t quant_min,
                       int64_t quant_max) {
  ETR_CHECK_OR_FAIL(zero_point >= quant_min && zero_point <= quant_max, Error::InvalidArgument,
                    "%s: %s %" PRId64 " outside the quant range [%" PRId64 ", %" PRId64 "]", op,
                    what, zero_point, quant_min, quant_max);
  return Error::Ok;
}

Error check_param_tensor(const char* op, const char* what, const Tensor& t, DtypeSet allowed) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, what, t.dtype(), allowed));
  return check_default_layout(op, what, t);
}

Error check_scale_values(const char* op, const char* what, const Tensor& t, int64_t n) {
  ETR_CHECK_OR_FAIL(kScaleTypes.contains(t.dtype()), Error::Internal,
                    "%s: %s has dtype %s, refused at load", op, what, to_string(t.dtype()));
  ETR_CHECK_OR_FAIL(t.numel() == n, Error::InvalidArgument,
                    "%s: %s has %" PRId64 " elements, expected %" PRId64, op, what, t.numel(), n);
  for (int64_t i = 0; i < n; ++i) {
    const double s = load_scale(t, i);
    ETR_CHECK_OR_FAIL(std::isfinite(s) && s > 0, Error::InvalidArgument,
                      "%s: %s[%" PRId64 "] = %g must be finite and > 0", op, what, i, s);
  }
  return Error::Ok;
}

Error check_zero_point_values(const char* op, const char* what, const Tensor& t, int64_t n,
                              int64_t quant_min, int64_t quant_max) {
  ETR_CHECK_OR_FAIL(kZeroPointTypes.contains(t.dtype()), Error::Internal,
                    "%s: %s has dtype %s, refused at load", op, what, to_string(t.dtype()));
  ETR_CHECK_OR_FAIL(t.numel() == n, Error::InvalidArgument,
                    "%s: %s has %" PRId64 " elements, expected %" PRId64, op, what, t.numel(), n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t z = load_zero_point(t, i);
    ETR_CHECK_OR_FAIL(z >= quant_min && z <= quant_max, Error::InvalidArgument,
                      "%s: %s[%" PRId64 "] = %" PRId64 " outside the quant range [%" PRId64
                      ", %" PRId64 "]",
                      op, what, i, z, quant_min, quant_max);
  }
  return Error::Ok;
}

}  // namespace etr
