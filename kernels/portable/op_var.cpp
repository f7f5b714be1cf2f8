// aten::var.correction_out, var.out and var_mean.correction_out: two-pass
// variance of each group in double, for float and double inputs with outs of
// the same dtype. The divisor is max(n - correction, 0) (so too large a
// correction gives inf, an empty group nan, as PyTorch).
#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

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
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    double sum = 0.0;
    for_each_reduced(plan, in_base, [&](int64_t i) { sum += static_cast<double>(in[i]); });
    const double mean = sum / n;
    double squares = 0.0;
    for_each_reduced(plan, in_base, [&](int64_t i) {
      const double d = static_cast<double>(in[i]) - mean;
      squares += d * d;
    });
    o[out_off] = convert<T>(squares / divisor);
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
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    variance<typename decltype(tag)::type>(self, plan, correction, out, mean_out);
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
