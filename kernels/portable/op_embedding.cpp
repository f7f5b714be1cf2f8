// aten::embedding.out: rows of a 2-D weight gathered at (Long or Int)
// indices of any shape; out is indices.shape + [embedding_dim] in the
// default dim order. Element bytes are moved (any dtype).
#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/index_util.h"

namespace etr {

Error embedding_prepare(KernelPrepareContext& ctx, const Tensor& weight, const Tensor& indices,
                        int64_t, bool, bool, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, 2));
  ETR_CHECK_OR_FAIL(indices.dim() < kTensorMaxDim, Error::InvalidArgument,
                    "%s: indices rank %zu too large", op, indices.dim());
  ETR_RETURN_IF_ERROR(check_index_dtype(op, indices));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, weight.dtype()));
  return check_rank(op, "out", out, indices.dim() + 1);
}

void embedding_out(KernelContext& ctx, const Tensor& weight, const Tensor& indices,
                   int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/, bool /*sparse*/,
                   Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_indices(op, indices, weight.size(0), false));
  int64_t sizes[kTensorMaxDim];
  const size_t r = indices.dim();
  for (size_t k = 0; k < r; ++k) sizes[k] = indices.size(k);
  sizes[r] = weight.size(1);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, weight.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, r + 1)));
  ETR_KERNEL_TRY(ctx, check_default_layout(op, "out", out));
  if (out.numel() == 0) return;
  CopyPlan row;
  row.add(weight.size(1), 1, weight.stride(1));
  const int64_t elem = static_cast<int64_t>(weight.element_size());
  for (int64_t i = 0; i < indices.numel(); ++i) {
    const int64_t v = load_index(indices.const_data(), indices.dtype(), i);
    run_copy(row, static_cast<char*>(out.mutable_data()) + i * weight.size(1) * elem,
             static_cast<const char*>(weight.const_data()) + v * weight.stride(0) * elem,
             weight.element_size());
  }
}

}  // namespace etr
