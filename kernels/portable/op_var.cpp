// aten::var.correction_out, var.out and var_mean.correction_out, for float
// and double inputs with outs of the same dtype, computed in double as
// PyTorch does on CPU:
//   * var_mean (always), and var whose out has more than one element:
//     Welford's updates over each group in memory order (mean += delta / k,
//     m2 += delta * (x - mean)). The mean is Welford's too, so an inf
//     followed by other elements makes it NaN (torch.mean would give inf).
//   * var whose out has one element: two passes, the mean first (the sum
//     stored in the input's dtype, then divided in it, as torch.mean does),
//     then the sum of squared deviations.
// The divisor is max(n - correction, 0) (too large a correction gives inf,
// or NaN for a zero sum); an empty group gives NaN for both outs.
#include <algorithm>
#include <limits>

#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

// The plan with its reduced dims ordered outermost in memory first, so that
// for_each_reduced walks each group in memory order (PyTorch's TensorIterator
// order, which fixes the rounding of the running sums).
ReducePlan in_memory_order(const ReducePlan& plan) {
  ReducePlan p = plan;
  size_t order[kTensorMaxDim];
  for (size_t d = 0; d < p.num_reduced; ++d) order[d] = d;
  std::stable_sort(order, order + p.num_reduced, [&](size_t a, size_t b) {
    return plan.reduced_strides[0][a] > plan.reduced_strides[0][b];
  });
  for (size_t d = 0; d < p.num_reduced; ++d) {
    p.reduced_sizes[d] = plan.reduced_sizes[order[d]];
    p.reduced_strides[0][d] = plan.reduced_strides[0][order[d]];
  }
  return p;
}

// Writes each group's variance to `out` and, when `mean_out` is set, its
// mean (mean_out has out's shape and dim order).
template <typename T>
void variance(const Tensor& self, const ReducePlan& plan, double correction, Tensor& out,
              Tensor* mean_out) {
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  T* m = mean_out != nullptr ? mean_out->data_ptr<T>() : nullptr;
  const double n = static_cast<double>(plan.reduced_numel);
  const double divisor = n - correction > 0.0 ? n - correction : 0.0;
  const bool welford = mean_out != nullptr || out.numel() != 1;
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    if (plan.reduced_numel == 0) {
      o[out_off] = std::numeric_limits<T>::quiet_NaN();
      if (m != nullptr) m[out_off] = std::numeric_limits<T>::quiet_NaN();
      return;
    }
    double mean = 0.0;
    double m2 = 0.0;
    if (welford) {
      int64_t k = 0;
      for_each_reduced(plan, in_base, [&](int64_t i) {
        const double x = static_cast<double>(in[i]);
        const double delta = x - mean;
        mean += delta / static_cast<double>(++k);
        m2 += delta * (x - mean);
      });
    } else {
      double sum = 0.0;
      for_each_reduced(plan, in_base, [&](int64_t i) { sum += static_cast<double>(in[i]); });
      // torch.mean: the sum stored in T, then divided in T.
      const T total = convert<T>(sum);
      mean = static_cast<double>(static_cast<T>(total / static_cast<T>(n)));
      for_each_reduced(plan, in_base, [&](int64_t i) {
        const double d = static_cast<double>(in[i]) - mean;
        m2 += d * d;
      });
    }
    o[out_off] = convert<T>(m2 / divisor);
    if (m != nullptr) m[out_off] = convert<T>(mean);
  });
}

// The run of every variant; `mean_out` may be null.
void run_variance(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  double correction, bool keepdim, Tensor& out, Tensor* mean_out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out, mean_out}));
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(op, self, dim, keepdim, out, &plan));
  if (mean_out != nullptr) {
    ETR_KERNEL_TRY(ctx, resize_output(op, *mean_out, out.sizes()));
    for (size_t d = 0; d < out.dim(); ++d) {
      ETR_KERNEL_CHECK(ctx, out.size(d) <= 1 || out.stride(d) == mean_out->stride(d),
                       Error::NotSupported, "%s: out0 and out1 must share a dim order", op);
    }
  }
  const ReducePlan ordered = in_memory_order(plan);
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    variance<typename decltype(tag)::type>(self, ordered, correction, out, mean_out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
}

double correction_or_one(const std::optional<Scalar>& correction) {
  return correction.has_value() ? correction->to_double() : 1.0;
}

}  // namespace

Error var_correction_prepare(KernelPrepareContext& ctx, const Tensor& self,
                             std::optional<IntArrayRef> dim, std::optional<Scalar>, bool keepdim,
                             Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, self.dtype()));
  return check_reduce_args(ctx.op_name(), self, dim, keepdim, out);
}

void var_correction_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                        std::optional<Scalar> correction, bool keepdim, Tensor& out) {
  run_variance(ctx, self, dim, correction_or_one(correction), keepdim, out, nullptr);
}

Error var_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool, bool keepdim, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, self.dtype()));
  return check_reduce_args(ctx.op_name(), self, dim, keepdim, out);
}

void var_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
             bool keepdim, Tensor& out) {
  run_variance(ctx, self, dim, unbiased ? 1.0 : 0.0, keepdim, out, nullptr);
}

Error var_mean_correction_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  std::optional<IntArrayRef> dim, std::optional<Scalar>,
                                  bool keepdim, Tensor& out0, Tensor& out1) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype(op, "out0", out0, self.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out1", out1, self.dtype()));
  ETR_RETURN_IF_ERROR(check_reduce_args(op, self, dim, keepdim, out0));
  return check_rank(op, "out1", out1, out0.dim());
}

void var_mean_correction_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                             std::optional<Scalar> correction, bool keepdim, Tensor& out0,
                             Tensor& out1) {
  run_variance(ctx, self, dim, correction_or_one(correction), keepdim, out0, &out1);
}

}  // namespace etr
