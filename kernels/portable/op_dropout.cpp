// aten::native_dropout.out in inference: with train=false (or p == 0) the
// output is the input and the mask all true; with p == 1 everything is
// dropped (input * 0, mask all false). Random dropout (0 < p < 1 while
// training) is not supported by this deterministic runtime.
#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {

void native_dropout_out(KernelContext& ctx, const Tensor& input, double p,
                        std::optional<bool> train, Tensor& out0, Tensor& out1) {
  constexpr const char* kOp = "aten::native_dropout.out";
  ETR_KERNEL_CHECK(ctx, p >= 0 && p <= 1, Error::InvalidArgument,
                   "%s: dropout probability has to be between 0 and 1, but got %g", kOp, p);
  ETR_KERNEL_CHECK(ctx, out1.dtype() == ScalarType::Bool, Error::InvalidType,
                   "%s: mask output must be Bool, got %s", kOp, to_string(out1.dtype()));
  // PyTorch treats a missing `train` as training.
  const bool training = !train.has_value() || *train;
  const bool drop_all = training && p == 1;
  ETR_KERNEL_CHECK(ctx, !training || p == 0 || p == 1, Error::NotImplemented,
                   "%s: random dropout (training with p=%g) is not supported", kOp, p);
  ETR_KERNEL_CHECK(ctx, !drop_all || is_floating(input.dtype()), Error::InvalidType,
                   "%s: dropping with p=1 needs a floating input, got %s", kOp,
                   to_string(input.dtype()));
  if (!check_copy_dtypes(ctx, kOp, input, out0) || !resize_out_like(ctx, kOp, out0, input) ||
      !resize_out_like(ctx, kOp, out1, input)) {
    return;
  }
  CopyPlan mask;
  for (size_t d = 0; d < input.dim(); ++d) mask.add(input.size(d), out1.stride(d), 0);
  const EValue keep(!drop_all);
  fill_with_scalar(mask, out1.mutable_data(), ScalarType::Bool, Scalar(keep));
  copy_same_shape(out0, input);
  if (drop_all) {
    const bool ok = dispatch_floating(out0.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* o = out0.data_ptr<T>();
      CopyPlan plan;
      for (size_t d = 0; d < out0.dim(); ++d) plan.add(out0.size(d), out0.stride(d), 0);
      for_each_row(plan, [&](int64_t off, int64_t, int64_t n, int64_t s, int64_t) {
        for (int64_t i = 0; i < n; ++i) o[off + i * s] = o[off + i * s] * T(0) * T(0);
      });
    });
    ETR_KERNEL_CHECK(ctx, ok, Error::InvalidType, "%s: unsupported dtype %s", kOp,
                     to_string(out0.dtype()));
  }
}

}  // namespace etr
