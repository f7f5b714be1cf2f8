// aten::arange.out and aten::arange.start_out: out[i] = start + i * step for
// i in [0, ceil((end - start) / step)). All-integer arguments use exact
// int64 arithmetic; otherwise sizes and values are computed in double, as
// PyTorch does. Out must be 1-D with a real dtype and step nonzero (both
// checked at load).
#include <cmath>

#include "kernels/portable/creation.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

// The number of elements into *n; InvalidArgument when start and end are
// invalid (step is nonzero: prepare checked it).
Error arange_length(const char* op, const Scalar& start, const Scalar& end, const Scalar& step,
                    bool integral, int64_t* n) {
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  auto fail = [&](const char* why) {
    ETR_LOG(Error, "%s: %s (start %g, end %g, step %g)", op, why, s, e, st);
    return Error::InvalidArgument;
  };
  if (!std::isfinite(s) || !std::isfinite(e)) return fail("start and end must be finite");
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    return fail("upper bound and larger bound inconsistent with step sign");
  }
  if (integral) {
    int64_t diff = 0;
    if (__builtin_sub_overflow(end.to_int(), start.to_int(), &diff) || diff == INT64_MIN) {
      return fail("range overflows");
    }
    const int64_t q = diff / step.to_int();
    *n = q + (diff % step.to_int() != 0 ? 1 : 0);
    return Error::Ok;
  }
  const double count = std::ceil((e - s) / st);
  if (!(count <= static_cast<double>(INT32_MAX))) return fail("too many elements");
  *n = static_cast<int64_t>(count);
  return Error::Ok;
}

}  // namespace

// Load: out is 1-D and step is nonzero. start and end may be symbolic, so
// their checks wait for run().
Error arange_start_prepare(KernelPrepareContext& ctx, Scalar, Scalar, Scalar step, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 1));
  ETR_CHECK_OR_FAIL(step.to_double() != 0, Error::InvalidArgument, "%s: step must be nonzero", op);
  return Error::Ok;
}

Error arange_prepare(KernelPrepareContext& ctx, Scalar, Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, 1);
}

void arange_start_out(KernelContext& ctx, Scalar start, Scalar end, Scalar step, Tensor& out) {
  const char* op = ctx.op_name();
  const bool integral = start.is_integral() && end.is_integral() && step.is_integral();
  int64_t n = 0;
  ETR_KERNEL_TRY(ctx, arange_length(op, start, end, step, integral, &n));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(&n, 1)));
  const bool known = dispatch_real(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data_ptr<T>();
    const int64_t os = out.stride(0);
    if (integral) {
      const int64_t s = start.to_int(), st = step.to_int();
      // start + i * step stays between start and end, so it cannot overflow.
      for (int64_t i = 0; i < n; ++i) o[i * os] = convert<T>(s + i * st);
    } else {
      const double s = start.to_double(), st = step.to_double();
      for (int64_t i = 0; i < n; ++i) o[i * os] = convert<T>(s + static_cast<double>(i) * st);
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

void arange_out(KernelContext& ctx, Scalar end, Tensor& out) {
  const EValue zero(int64_t{0});
  const EValue one(int64_t{1});
  arange_start_out(ctx, Scalar(zero), end, Scalar(one), out);
}

}  // namespace etr
