// aten::expand_copy.out: broadcast self to `size` (-1 keeps a dim; new
// leading dims may be added) by reading size-1 dims with stride 0. Element
// bytes are moved (any dtype); any dim order.
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {

// Load: the target's rank (the sizes may be symbolic and are checked in run()).
Error expand_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef size, bool,
                          Tensor& out) {
  const char* op = ctx.op_name();
  const size_t n = size.size();
  ETR_CHECK_OR_FAIL(n >= self.dim() && n <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: cannot expand %s to %zu dims", op, ShapeText(self).c_str(), n);
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, n);
}

void expand_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, bool /*implicit*/,
                     Tensor& out) {
  const char* op = ctx.op_name();
  const size_t n = size.size();
  const size_t r = self.dim();
  int64_t sizes[kTensorMaxDim];
  int64_t src_strides[kTensorMaxDim];
  for (size_t i = 0; i < n; ++i) {
    const bool is_new = i < n - r;
    const int64_t in_size = is_new ? 1 : self.size(i - (n - r));
    const int64_t target = (!is_new && size[i] == -1) ? in_size : size[i];
    ETR_KERNEL_CHECK(ctx, target >= 0 && (in_size == target || in_size == 1),
                     Error::InvalidArgument,
                     "%s: expanded size %lld must match existing size %lld at dim %zu (%s to %s)",
                     op, static_cast<long long>(size[i]), static_cast<long long>(in_size), i,
                     ShapeText(self).c_str(), ShapeText(size).c_str());
    sizes[i] = target;
    src_strides[i] = (is_new || in_size == 1) ? 0 : self.stride(i - (n - r));
  }
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, n)));
  CopyPlan plan;
  for (size_t i = 0; i < n; ++i) plan.add(sizes[i], out.stride(i), src_strides[i]);
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

}  // namespace etr
