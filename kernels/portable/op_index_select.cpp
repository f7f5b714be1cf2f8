// aten::index_select.out: gathers slabs of self along `dim` at the (Long or
// Int) positions in a 1-D index. Element bytes are moved (any dtype); any
// dim order for self and out.
#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/index_util.h"

namespace etr {
namespace {

// out[..., dst_index, ...] = self[..., src_index, ...] along dim d (out has
// self's rank; a 0-d self is copied whole).
void copy_slab(const Tensor& self, size_t d, int64_t src_index, Tensor& out, int64_t dst_index) {
  CopyPlan plan;
  for (size_t k = 0; k < self.dim(); ++k) {
    if (k != d) plan.add(self.size(k), out.stride(k), self.stride(k));
  }
  const int64_t elem = static_cast<int64_t>(self.element_size());
  const int64_t src_off = self.dim() == 0 ? 0 : src_index * self.stride(d);
  const int64_t dst_off = self.dim() == 0 ? 0 : dst_index * out.stride(d);
  run_copy(plan, static_cast<char*>(out.mutable_data()) + dst_off * elem,
           static_cast<const char*>(self.const_data()) + src_off * elem, self.element_size());
}

}  // namespace

Error index_select_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                           const Tensor& index, Tensor& out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  ETR_CHECK_OR_FAIL(index.dim() <= 1, Error::InvalidArgument, "%s: index must be a vector, got %s",
                    op, ShapeText(index).c_str());
  ETR_RETURN_IF_ERROR(check_index_dtype(op, index));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

void index_select_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                      Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  ETR_KERNEL_CHECK(ctx, self.dim() > 0 || index.numel() == 1, Error::InvalidArgument,
                   "%s: index into a 0-d tensor must have exactly one value", op);
  ETR_KERNEL_TRY(ctx, check_indices(op, index, size, false));
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < self.dim(); ++k) sizes[k] = k == d ? index.numel() : self.size(k);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, self.dim())));
  if (out.numel() == 0) return;
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = load_index(index.const_data(), index.dtype(), i);
    copy_slab(self, d, v, out, i);
  }
}

}  // namespace etr
