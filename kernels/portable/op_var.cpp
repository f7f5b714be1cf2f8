// aten::var.correction_out: two-pass variance of each group in double, for
// float and double inputs with an out of the same dtype.
#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

template <typename T>
void variance(const Tensor& self, const ReducePlan& plan, double correction, Tensor& out) {
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
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
  });
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
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), self.dtype(), {&out}));
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(ctx.op_name(), self, dim, keepdim, out, &plan));
  const double c = correction.has_value() ? correction->to_double() : 1.0;
  const bool known = dispatch_floating(
      self.dtype(), [&](auto tag) { variance<typename decltype(tag)::type>(self, plan, c, out); });
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), known, self.dtype()));
}

}  // namespace etr
