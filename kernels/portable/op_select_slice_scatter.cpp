// aten::select_scatter.out and aten::slice_scatter.out: out is a copy of
// self with one index (select) or one strided range (slice) along `dim`
// replaced by src. src must have exactly the shape of that part; it is
// converted to self's dtype like copy_ (real dtypes and bool; other dtypes
// must match and are moved as bytes). Any dim order.
#include <limits>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// Load: dim in range, src of the given rank and a dtype that converts to
// self's, out of self's dtype and rank.
Error check_scatter_args(const char* op, const Tensor& self, const Tensor& src, int64_t dim,
                         size_t src_rank, const Tensor& out) {
  size_t d = 0;
  ETR_CHECK_OR_FAIL(self.dim() > 0, Error::InvalidArgument, "%s: self must have at least one dim",
                    op);
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  ETR_RETURN_IF_ERROR(check_rank(op, "src", src, src_rank));
  if (src.dtype() != self.dtype()) {
    ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kRealAndBoolTypes));
    ETR_RETURN_IF_ERROR(check_dtype_in(op, "src", src.dtype(), kRealAndBoolTypes));
  }
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

// Run: out <- self, then out[..., start + i*step, ...] <- src along d for i
// in [0, len); src has len at d (keep_dim) or lacks d. Checks src's shape.
Error scatter_range(const char* op, const Tensor& self, const Tensor& src, size_t d, int64_t start,
                    int64_t len, int64_t step, bool keep_dim, Tensor& out) {
  int64_t expected[kTensorMaxDim];
  size_t n = 0;
  for (size_t k = 0; k < self.dim(); ++k) {
    if (k != d) {
      expected[n++] = self.size(k);
    } else if (keep_dim) {
      expected[n++] = len;
    }
  }
  bool same = src.dim() == n;
  for (size_t k = 0; same && k < n; ++k) same = src.size(k) == expected[k];
  ETR_CHECK_OR_FAIL(same, Error::InvalidArgument, "%s: src %s does not match the slice %s of self",
                    op, ShapeText(src).c_str(),
                    ShapeText(Span<const int64_t>(expected, n)).c_str());
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_RETURN_IF_ERROR(resize_output(op, out, self.sizes()));
  if (out.const_data() != self.const_data()) copy_same_shape(out, self);
  if (len == 0 || out.numel() == 0) return Error::Ok;
  CopyPlan plan;
  size_t s = 0;
  for (size_t k = 0; k < self.dim(); ++k) {
    if (k == d) {
      if (keep_dim) plan.add(len, out.stride(k) * (len > 1 ? step : 1), src.stride(s++));
    } else {
      plan.add(self.size(k), out.stride(k), src.stride(s++));
    }
  }
  const int64_t elem = static_cast<int64_t>(out.element_size());
  char* dst = static_cast<char*>(out.mutable_data()) + start * out.stride(d) * elem;
  if (src.dtype() == out.dtype()) {
    run_copy(plan, dst, src.const_data(), out.element_size());
    return Error::Ok;
  }
  const bool known = run_convert_copy(plan, dst, out.dtype(), src.const_data(), src.dtype());
  return check_dispatched(op, known, src.dtype());
}

}  // namespace

Error select_scatter_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& src,
                             int64_t dim, int64_t /*index*/, Tensor& out) {
  const size_t r = self.dim() == 0 ? 0 : self.dim() - 1;
  return check_scatter_args(ctx.op_name(), self, src, dim, r, out);
}

void select_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src, int64_t dim,
                        int64_t index, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, index >= -size && index < size, Error::InvalidArgument,
                   "%s: index %lld out of range for dim %zu of size %lld", op,
                   static_cast<long long>(index), d, static_cast<long long>(size));
  const int64_t i = index < 0 ? index + size : index;
  ETR_KERNEL_TRY(ctx, scatter_range(op, self, src, d, i, 1, 1, false, out));
}

Error slice_scatter_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& src,
                            int64_t dim, std::optional<int64_t> /*start*/,
                            std::optional<int64_t> /*end*/, int64_t step, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(step > 0, Error::InvalidArgument, "%s: slice step must be positive, got %lld",
                    op, static_cast<long long>(step));
  return check_scatter_args(op, self, src, dim, self.dim(), out);
}

void slice_scatter_out(KernelContext& ctx, const Tensor& self, const Tensor& src, int64_t dim,
                       std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                       Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx, step > 0, Error::InvalidArgument,
                   "%s: slice step must be positive, got %lld", op, static_cast<long long>(step));
  const size_t d = wrapped_dim(dim, self.dim());
  // As slice: negative bounds count from the end, then clamp to [0, size].
  const int64_t size = self.size(d);
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(std::numeric_limits<int64_t>::max());
  if (s < 0) s = s < -size ? 0 : s + size;
  if (e < 0) e = e < -size ? 0 : e + size;
  if (s > size) s = size;
  if (e > size) e = size;
  if (e < s) e = s;
  const int64_t len = e == s ? 0 : (e - s - 1) / step + 1;
  ETR_KERNEL_TRY(ctx, scatter_range(op, self, src, d, s, len, step, true, out));
}

}  // namespace etr
