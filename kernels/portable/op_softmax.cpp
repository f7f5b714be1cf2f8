// aten::_softmax and aten::_log_softmax along one dim, for float and double
// (computed in double: max-shifted exponentials, then normalized).
#include <cmath>
#include <limits>

#include "kernels/portable/normalization.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

template <bool kLog, typename T>
void softmax_groups(const Tensor& self, size_t dim, Tensor& out) {
  ReducePlan plan;
  make_dim_plan(self, dim, out, &plan);
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t in_step = self.dim() == 0 ? 0 : self.stride(dim);
  const int64_t out_step = self.dim() == 0 ? 0 : out.stride(dim);
  for_each_group(plan, [&](int64_t out_base, int64_t in_base) {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < n; ++j) {
      const double x = static_cast<double>(in[in_base + j * in_step]);
      if (std::isnan(x) || x > max) max = x;
    }
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      sum += std::exp(static_cast<double>(in[in_base + j * in_step]) - max);
    }
    const double log_sum = std::log(sum);
    for (int64_t j = 0; j < n; ++j) {
      const double shifted = static_cast<double>(in[in_base + j * in_step]) - max;
      const double y = kLog ? shifted - log_sum : std::exp(shifted) / sum;
      o[out_base + j * out_step] = convert<T>(y);
    }
  });
}

template <bool kLog>
void softmax_impl(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), self.dtype(), {&out}));
  size_t d = 0;
  ETR_KERNEL_TRY(ctx, wrap_dim(ctx.op_name(), dim, self.dim(), &d));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    softmax_groups<kLog, typename decltype(tag)::type>(self, d, out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), known, self.dtype()));
}

}  // namespace

Error softmax_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                      bool half_to_float, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(!half_to_float, Error::NotSupported,
                    "%s: half_to_float=True is not supported (no Half inputs)", op);
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  size_t d = 0;
  return wrap_dim(op, dim, self.dim(), &d);
}

void softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool /*half_to_float*/,
                 Tensor& out) {
  softmax_impl<false>(ctx, self, dim, out);
}

void log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool /*half_to_float*/,
                     Tensor& out) {
  softmax_impl<true>(ctx, self, dim, out);
}

}  // namespace etr
