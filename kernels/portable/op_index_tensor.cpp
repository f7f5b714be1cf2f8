// aten::index.Tensor_out: advanced indexing with Long/Int index tensors and
// Bool/Byte masks (a mask stands for the index tensors of its nonzero
// coordinates), broadcast together; adjacent index dims keep their place in
// the result, separated ones move to the front, as in PyTorch. Every index
// is range-checked before anything is written. Element bytes are moved (any
// dtype); index tensors must be in the default dim order. Prepare checks
// everything that follows from dtypes and ranks (index dtypes, how many dims
// are indexed, the result's rank); run() checks sizes and index values.
#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/index_util.h"

namespace etr {
namespace {

// index.Tensor refuses a mask that is not in the default dim order.
Error check_mask_layout(const char* op, const Tensor& self, const Tensor& mask, size_t d) {
  ETR_CHECK_OR_FAIL(is_default_layout(mask), Error::InvalidArgument,
                    "%s: mask %s does not fit self %s at dim %zu", op, ShapeText(mask).c_str(),
                    ShapeText(self).c_str(), d);
  return Error::Ok;
}

void gather(const Tensor& self, const IndexPlan& p, Tensor& out) {
  CopyPlan plan;
  for (size_t i = 0; i < p.num_pre; ++i) {
    plan.add(self.size(p.pre[i]), out.stride(i), self.stride(p.pre[i]));
  }
  for (size_t i = 0; i < p.num_post; ++i) {
    plan.add(self.size(p.post[i]), out.stride(p.num_pre + p.brank + i), self.stride(p.post[i]));
  }
  const int64_t elem = static_cast<int64_t>(self.element_size());
  int64_t b[kTensorMaxDim] = {};
  while (true) {
    int64_t dst_off = 0;
    for (size_t j = 0; j < p.brank; ++j) dst_off += b[j] * out.stride(p.num_pre + j);
    const int64_t src_off = indexed_offset(p, self, b);
    run_copy(plan, static_cast<char*>(out.mutable_data()) + dst_off * elem,
             static_cast<const char*>(self.const_data()) + src_off * elem, self.element_size());
    size_t j = p.brank;
    while (j > 0 && ++b[j - 1] == p.bsizes[j - 1]) b[--j] = 0;
    if (j == 0) return;
  }
}

}  // namespace

Error index_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self,
                           OptionalTensorList indices, Tensor& out) {
  const char* op = ctx.op_name();
  size_t d = 0;        // self dims consumed
  size_t sources = 0;  // self dims indexed
  size_t brank = 0;    // rank of the broadcast index shape
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor* t = indices[i];
    if (t == nullptr) {
      ++d;
      continue;
    }
    if (is_index_mask(*t)) {
      const size_t k = t->dim();
      ETR_CHECK_OR_FAIL(k > 0, Error::NotSupported, "%s: 0-d masks are not supported", op);
      ETR_CHECK_OR_FAIL(d + k <= self.dim(), Error::InvalidArgument,
                        "%s: a %zu-d mask at dim %zu does not fit a %zu-d tensor", op, k, d,
                        self.dim());
      sources += k;
      d += k;
      brank = brank > 1 ? brank : 1;
    } else {
      ETR_CHECK_OR_FAIL(d < self.dim(), Error::InvalidArgument,
                        "%s: too many indices for a %zu-d tensor", op, self.dim());
      ETR_RETURN_IF_ERROR(check_index_dtype(op, *t));
      ++sources;
      ++d;
      brank = brank > t->dim() ? brank : t->dim();
    }
  }
  ETR_CHECK_OR_FAIL(d <= self.dim(), Error::InvalidArgument,
                    "%s: too many indices (%zu) for a %zu-d tensor", op, d, self.dim());
  ETR_CHECK_OR_FAIL(sources > 0, Error::InvalidArgument,
                    "%s: at least one index tensor is required", op);
  const size_t rank = self.dim() - sources + brank;
  ETR_CHECK_OR_FAIL(rank <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: result rank %zu exceeds the limit", op, rank);
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, rank);
}

void index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                      Tensor& out) {
  const char* op = ctx.op_name();
  IndexPlan p;
  ETR_KERNEL_TRY(ctx, build_index_plan(ctx, op, self, indices, check_mask_layout, &p));
  const size_t rank = p.rank();
  int64_t sizes[kTensorMaxDim];
  for (size_t r = 0; r < rank; ++r) sizes[r] = index_result_size(p, self, r);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, rank)));
  if (out.numel() == 0) return;
  gather(self, p, out);
}

}  // namespace etr
