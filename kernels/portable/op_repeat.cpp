// aten::repeat.out: tile the input `repeats[d]` times along each dim (extra
// leading repeats add new dims). Output dim d of size r*s is split into a
// (r, s) loop pair whose outer loop re-reads the input (source stride 0).
// Dtype-agnostic, any dim order.
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"
#include "runtime/core/checked_math.h"

namespace etr {

// Load: how many repeats (their values may be symbolic and are checked in run()).
Error repeat_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef repeats,
                     Tensor& out) {
  const char* op = ctx.op_name();
  const size_t n = repeats.size();
  const size_t r = self.dim();
  ETR_CHECK_OR_FAIL(n >= r && n <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: %zu repeats given for a %zu-d tensor (need %zu..%zu)", op, n, r, r,
                    kTensorMaxDim);
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, n);
}

void repeat_out(KernelContext& ctx, const Tensor& self, IntArrayRef repeats, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t n = repeats.size();
  const size_t r = self.dim();
  int64_t sizes[kTensorMaxDim];
  int64_t in_sizes[kTensorMaxDim];
  int64_t in_strides[kTensorMaxDim];
  for (size_t i = 0; i < n; ++i) {
    const bool is_new = i < n - r;
    in_sizes[i] = is_new ? 1 : self.size(i - (n - r));
    in_strides[i] = is_new ? 0 : self.stride(i - (n - r));
    ETR_KERNEL_CHECK(ctx, repeats[i] >= 0, Error::InvalidArgument,
                     "%s: repeats %s must be non-negative", op, ShapeText(repeats).c_str());
    ETR_KERNEL_CHECK(ctx, checked_mul_i64(in_sizes[i], repeats[i], &sizes[i]),
                     Error::InvalidArgument, "%s: repeated size overflows", op);
  }
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, n)));
  if (out.numel() == 0) return;
  CopyPlan plan;
  for (size_t i = 0; i < n; ++i) {
    plan.add(repeats[i], out.stride(i) * in_sizes[i], 0);
    plan.add(in_sizes[i], out.stride(i), in_strides[i]);
  }
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

}  // namespace etr
