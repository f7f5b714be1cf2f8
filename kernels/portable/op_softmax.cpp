// aten::_softmax and aten::_log_softmax along one dim, for float and double
// (computed in double: max-shifted exponentials, then normalized).
#include <cmath>
#include <limits>

#include "kernels/portable/ops_elementwise.h"
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
void softmax_impl(KernelContext& ctx, const char* op, const Tensor& self, int64_t dim,
                  bool half_to_float, Tensor& out) {
  ETR_KERNEL_CHECK(ctx, !half_to_float, Error::NotSupported,
                   "%s: half_to_float=True is not supported (no Half inputs)", op);
  ETR_KERNEL_CHECK(ctx, is_floating(self.dtype()) && out.dtype() == self.dtype(),
                   Error::InvalidType,
                   "%s: needs a float or double input and an out of the same dtype; got %s -> %s",
                   op, to_string(self.dtype()), to_string(out.dtype()));
  size_t d = 0;
  if (!kernel_ok(ctx, normalize_dim(op, dim, self.dim(), &d))) return;
  if (!kernel_ok(ctx, resize_like(op, out, self))) return;
  dispatch_floating(self.dtype(), [&](auto tag) {
    softmax_groups<kLog, typename decltype(tag)::type>(self, d, out);
  });
}

}  // namespace

void softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                 Tensor& out) {
  softmax_impl<false>(ctx, "aten::_softmax.out", self, dim, half_to_float, out);
}

void log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                     Tensor& out) {
  softmax_impl<true>(ctx, "aten::_log_softmax.out", self, dim, half_to_float, out);
}

}  // namespace etr
