// aten::native_dropout.out in inference: with train=false (or p == 0) the
// output is the input and the mask all true; with p == 1 while training
// everything is dropped (input * 0, mask all false). Random dropout
// (0 < p < 1 while training) is not supported by this deterministic runtime.
#include "kernels/portable/activation.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// PyTorch treats a missing `train` as training.
bool is_training(const std::optional<bool>& train) { return !train.has_value() || *train; }

// out0 *= 0 (keeps NaN and signed zeros as PyTorch's input * mask does).
template <typename T>
void zero_out(Tensor& out0) {
  T* o = out0.data_ptr<T>();
  CopyPlan plan;
  for (size_t d = 0; d < out0.dim(); ++d) plan.add(out0.size(d), out0.stride(d), 0);
  for_each_row(plan, [&](int64_t off, int64_t, int64_t n, int64_t s, int64_t) {
    for (int64_t i = 0; i < n; ++i) o[off + i * s] = o[off + i * s] * T(0) * T(0);
  });
}

}  // namespace

Error native_dropout_prepare(KernelPrepareContext& ctx, const Tensor& input, double p,
                             std::optional<bool> train, Tensor& out0, Tensor& out1) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(p >= 0 && p <= 1, Error::InvalidArgument,
                    "%s: dropout probability has to be between 0 and 1, but got %g", op, p);
  ETR_RETURN_IF_ERROR(check_dtype(op, "mask output", out1, ScalarType::Bool));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out0", out0, input.dtype()));
  const bool training = is_training(train);
  ETR_CHECK_OR_FAIL(!training || p == 0 || p == 1, Error::NotImplemented,
                    "%s: random dropout (training with p=%g) is not supported", op, p);
  ETR_CHECK_OR_FAIL(!(training && p == 1) || is_floating(input.dtype()), Error::InvalidType,
                    "%s: dropping with p=1 needs a floating input, got %s", op,
                    to_string(input.dtype()));
  return Error::Ok;
}

void native_dropout_out(KernelContext& ctx, const Tensor& input, double p,
                        std::optional<bool> train, Tensor& out0, Tensor& out1) {
  const bool drop_all = is_training(train) && p == 1;
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), input.dtype(), {&out0}));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out0, input.sizes()));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out1, input.sizes()));
  CopyPlan mask;
  for (size_t d = 0; d < input.dim(); ++d) mask.add(input.size(d), out1.stride(d), 0);
  const EValue keep(!drop_all);
  const bool filled = fill_with_scalar(mask, out1.mutable_data(), out1.dtype(), Scalar(keep));
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), filled, out1.dtype()));
  copy_same_shape(out0, input);
  if (!drop_all) return;
  const bool zeroed = dispatch_floating(
      out0.dtype(), [&](auto tag) { zero_out<typename decltype(tag)::type>(out0); });
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), zeroed, out0.dtype()));
}

}  // namespace etr
