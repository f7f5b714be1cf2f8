// Dim-reordering copies: aten::permute_copy.out, transpose_copy.int_out and
// t_copy.out. A CopyPlan over the output's logical dims reads the input
// through permuted strides. Element bytes are moved (any dtype); any dim
// order.
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// out = self with dims reordered by perm (perm[i] = input dim of output dim i).
void permute_impl(KernelContext& ctx, const Tensor& self, const size_t* perm, Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) sizes[i] = self.size(perm[i]);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, Span<const int64_t>(sizes, self.dim())));
  CopyPlan plan;
  for (size_t i = 0; i < self.dim(); ++i) plan.add(sizes[i], out.stride(i), self.stride(perm[i]));
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

// Every reorder's output: self's dtype and rank.
Error check_reorder_out(const char* op, const Tensor& self, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

}  // namespace

Error permute_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                           Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(dims.size() == self.dim(), Error::InvalidArgument,
                    "%s: %zu dims given for a %zu-d tensor", op, dims.size(), self.dim());
  bool seen[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = 0;
    ETR_RETURN_IF_ERROR(wrap_dim(op, dims[i], self.dim(), &d));
    ETR_CHECK_OR_FAIL(!seen[d], Error::InvalidArgument, "%s: dim %zu repeated in dims", op, d);
    seen[d] = true;
  }
  return check_reorder_out(op, self, out);
}

Error transpose_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim0,
                             int64_t dim1, Tensor& out) {
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(ctx.op_name(), dim0, self.dim(), &d));
  ETR_RETURN_IF_ERROR(wrap_dim(ctx.op_name(), dim1, self.dim(), &d));
  return check_reorder_out(ctx.op_name(), self, out);
}

Error t_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  ETR_CHECK_OR_FAIL(self.dim() <= 2, Error::InvalidArgument,
                    "%s: expects a tensor with <= 2 dims, got %s", ctx.op_name(),
                    ShapeText(self).c_str());
  return check_reorder_out(ctx.op_name(), self, out);
}

void permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  size_t perm[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) perm[i] = wrapped_dim(dims[i], self.dim());
  permute_impl(ctx, self, perm, out);
}

void transpose_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim0, int64_t dim1,
                            Tensor& out) {
  const size_t d0 = wrapped_dim(dim0, self.dim());
  const size_t d1 = wrapped_dim(dim1, self.dim());
  size_t perm[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) perm[i] = i;
  if (self.dim() > 0) {
    perm[d0] = d1;
    perm[d1] = d0;
  }
  permute_impl(ctx, self, perm, out);
}

void t_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  const size_t perm[2] = {self.dim() == 2 ? 1u : 0u, 0u};
  permute_impl(ctx, self, perm, out);
}

}  // namespace etr
