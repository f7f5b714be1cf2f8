// aten::arange.out and aten::arange.start_out: out[i] = start + i * step for
// i in [0, ceil((end - start) / step)). All-integer arguments use exact
// int64 arithmetic; otherwise sizes and values are computed in double, as
// PyTorch does. Out must be 1-D with a real dtype.
#include <cmath>

#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

constexpr const char* kOp = "aten::arange.start_out";

// Number of elements; -1 (after failing ctx) when the arguments are invalid.
int64_t arange_length(KernelContext& ctx, const Scalar& start, const Scalar& end,
                      const Scalar& step, bool integral) {
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  auto fail = [&](const char* why) {
    ETR_LOG(Error, "%s: %s (start %g, end %g, step %g)", kOp, why, s, e, st);
    ctx.fail(Error::InvalidArgument);
    return int64_t{-1};
  };
  if (!std::isfinite(s) || !std::isfinite(e)) return fail("start and end must be finite");
  if (st == 0) return fail("step must be nonzero");
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    return fail("upper bound and larger bound inconsistent with step sign");
  }
  if (integral) {
    int64_t diff = 0;
    if (__builtin_sub_overflow(end.to_int(), start.to_int(), &diff) || diff == INT64_MIN) {
      return fail("range overflows");
    }
    const int64_t q = diff / step.to_int();
    return q + (diff % step.to_int() != 0 ? 1 : 0);
  }
  const double n = std::ceil((e - s) / st);
  if (!(n <= static_cast<double>(INT32_MAX))) return fail("too many elements");
  return static_cast<int64_t>(n);
}

}  // namespace

void arange_start_out(KernelContext& ctx, Scalar start, Scalar end, Scalar step, Tensor& out) {
  ETR_KERNEL_CHECK(ctx, out.dim() == 1, Error::InvalidArgument, "%s: out must be 1-D, got %s", kOp,
                   shape_str(out).c_str());
  const bool integral = start.is_integral() && end.is_integral() && step.is_integral();
  const int64_t n = arange_length(ctx, start, end, step, integral);
  if (n < 0) return;
  if (!resize_out(ctx, kOp, out, &n, 1)) return;
  const bool ok = dispatch_real(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data_ptr<T>();
    const int64_t os = out.stride(0);
    if (integral) {
      const int64_t s = start.to_int(), st = step.to_int();
      // start + i * step stays between start and end, so it cannot overflow.
      for (int64_t i = 0; i < n; ++i) o[i * os] = convert_value<T>(s + i * st);
    } else {
      const double s = start.to_double(), st = step.to_double();
      for (int64_t i = 0; i < n; ++i) o[i * os] = convert_value<T>(s + static_cast<double>(i) * st);
    }
  });
  ETR_KERNEL_CHECK(ctx, ok, Error::InvalidType, "%s: unsupported out dtype %s", kOp,
                   to_string(out.dtype()));
}

void arange_out(KernelContext& ctx, Scalar end, Tensor& out) {
  const EValue zero(int64_t{0});
  const EValue one(int64_t{1});
  arange_start_out(ctx, Scalar(zero), end, Scalar(one), out);
}

}  // namespace etr
