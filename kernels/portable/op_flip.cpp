// aten::flip.out: reverses the listed dims by reading them with negated
// strides from their last element. Element bytes are moved (any dtype); any
// dim order.
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {

Error flip_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  const char* op = ctx.op_name();
  bool seen[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = 0;
    ETR_RETURN_IF_ERROR(wrap_dim(op, dims[i], self.dim(), &d));
    ETR_CHECK_OR_FAIL(!seen[d], Error::InvalidArgument, "%s: dim %zu appears multiple times", op,
                      d);
    seen[d] = true;
  }
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

void flip_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  const char* op = ctx.op_name();
  bool flip[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) flip[wrapped_dim(dims[i], self.dim())] = true;
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, self.sizes()));
  if (self.numel() == 0) return;
  CopyPlan plan;
  int64_t src_offset = 0;
  for (size_t i = 0; i < self.dim(); ++i) {
    const int64_t s = self.stride(i);
    if (flip[i] && self.size(i) > 1) src_offset += (self.size(i) - 1) * s;
    plan.add(self.size(i), out.stride(i), flip[i] ? -s : s);
  }
  const char* src = static_cast<const char*>(self.const_data()) +
                    src_offset * static_cast<int64_t>(self.element_size());
  run_copy(plan, out.mutable_data(), src, self.element_size());
}

}  // namespace etr
