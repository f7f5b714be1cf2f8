// Copies of strided views of self: aten::diagonal_copy.out,
// as_strided_copy.out and unfold_copy.out. Each builds a CopyPlan that reads
// self through the view's strides and writes out through its own, so any
// dtype and any dim order work. Prepare checks ranks, dims, out's dtype and
// the constant int arguments; sizes that depend on self's (possibly dynamic)
// sizes or on symbolic arguments are checked in run().
#include <algorithm>
#include <cstdint>

#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// Bytes of self's element `offset`, for a plan that reads at least one element.
const void* element_at(const Tensor& self, int64_t offset) {
  return static_cast<const uint8_t*>(self.const_data()) +
         offset * static_cast<int64_t>(self.element_size());
}

Error check_same_dtype_out(const char* op, const Tensor& self, const Tensor& out) {
  return check_dtype(op, "out", out, self.dtype());
}

// The length of the diagonal `offset` of a size1 x size2 matrix.
int64_t diagonal_length(int64_t size1, int64_t size2, int64_t offset) {
  if (offset >= 0) return offset >= size2 ? 0 : std::min(size1, size2 - offset);
  return offset <= -size1 ? 0 : std::min(size1 + offset, size2);
}

}  // namespace

// ---- diagonal_copy: out holds self's other dims in order, then the diagonal.

Error diagonal_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t, int64_t dim1,
                            int64_t dim2, Tensor& out) {
  const char* op = ctx.op_name();
  size_t d1 = 0;
  size_t d2 = 0;
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 2, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim1, self.dim(), &d1));
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim2, self.dim(), &d2));
  ETR_CHECK_OR_FAIL(d1 != d2, Error::InvalidArgument,
                    "%s: dim1 and dim2 cannot be the same dim (%zu)", op, d1);
  ETR_RETURN_IF_ERROR(check_same_dtype_out(op, self, out));
  return check_rank(op, "out", out, self.dim() - 1);
}

void diagonal_copy_out(KernelContext& ctx, const Tensor& self, int64_t offset, int64_t dim1,
                       int64_t dim2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  const size_t d1 = wrapped_dim(dim1, self.dim());
  const size_t d2 = wrapped_dim(dim2, self.dim());
  const int64_t len = diagonal_length(self.size(d1), self.size(d2), offset);
  int64_t sizes[kTensorMaxDim];
  int64_t src_strides[kTensorMaxDim];
  size_t n = 0;
  for (size_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes[n] = self.size(d);
    src_strides[n++] = self.stride(d);
  }
  sizes[n] = len;
  src_strides[n++] = self.stride(d1) + self.stride(d2);
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, n)));
  if (out.numel() == 0) return;
  CopyPlan plan;
  for (size_t k = 0; k < n; ++k) plan.add(sizes[k], out.stride(k), src_strides[k]);
  const int64_t start = offset >= 0 ? offset * self.stride(d2) : -offset * self.stride(d1);
  run_copy(plan, out.mutable_data(), element_at(self, start), self.element_size());
}

// ---- as_strided_copy: out[i] = storage[storage_offset + sum(i[d] * stride[d])],
// where self's data (self.numel() elements) is the storage.

Error as_strided_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef size,
                              IntArrayRef stride, std::optional<int64_t>, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(size.size() == stride.size(), Error::InvalidArgument,
                    "%s: size has %zu entries but stride has %zu", op, size.size(), stride.size());
  ETR_RETURN_IF_ERROR(check_same_dtype_out(op, self, out));
  return check_rank(op, "out", out, size.size());
}

void as_strided_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size,
                         IntArrayRef stride, std::optional<int64_t> storage_offset, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_CHECK(ctx, size.size() == stride.size() && size.size() == out.dim(), Error::Internal,
                   "%s: size/stride/out ranks differ (not prepared)", op);
  const int64_t base = storage_offset.value_or(0);
  ETR_KERNEL_CHECK(ctx, base >= 0, Error::InvalidArgument,
                   "%s: storage_offset must be non-negative, got %lld", op,
                   static_cast<long long>(base));
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    ETR_KERNEL_CHECK(ctx, size[d] >= 0 && stride[d] >= 0, Error::InvalidArgument,
                     "%s: size %s and stride %s must be non-negative", op, ShapeText(size).c_str(),
                     ShapeText(stride).c_str());
    empty = empty || size[d] == 0;
  }
  ETR_KERNEL_TRY(ctx, resize_output(op, out, size));
  if (empty) return;
  // The last element read must lie inside self's storage.
  int64_t last = base;
  bool ok = true;
  for (size_t d = 0; d < size.size() && ok; ++d) {
    int64_t span = 0;
    ok = checked_mul_i64(size[d] - 1, stride[d], &span) &&
         !__builtin_add_overflow(last, span, &last);
  }
  ETR_KERNEL_CHECK(ctx, ok && last < self.numel(), Error::InvalidArgument,
                   "%s: size %s, stride %s and storage_offset %lld reach past self's %lld "
                   "elements",
                   op, ShapeText(size).c_str(), ShapeText(stride).c_str(),
                   static_cast<long long>(base), static_cast<long long>(self.numel()));
  CopyPlan plan;
  for (size_t d = 0; d < size.size(); ++d) plan.add(size[d], out.stride(d), stride[d]);
  run_copy(plan, out.mutable_data(), element_at(self, base), self.element_size());
}

// ---- unfold_copy: out[..., j, ..., k] = self[..., j * step + k, ...] along
// `dimension`, with the window index k as out's last dim.

Error unfold_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dimension,
                          int64_t size, int64_t step, Tensor& out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 0, kTensorMaxDim - 1));
  ETR_RETURN_IF_ERROR(wrap_dim(op, dimension, self.dim(), &d));
  ETR_CHECK_OR_FAIL(size >= 0, Error::InvalidArgument, "%s: size must be non-negative, got %lld",
                    op, static_cast<long long>(size));
  ETR_CHECK_OR_FAIL(step > 0, Error::InvalidArgument, "%s: step must be positive, got %lld", op,
                    static_cast<long long>(step));
  ETR_RETURN_IF_ERROR(check_same_dtype_out(op, self, out));
  return check_rank(op, "out", out, self.dim() + 1);
}

void unfold_copy_out(KernelContext& ctx, const Tensor& self, int64_t dimension, int64_t size,
                     int64_t step, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  const size_t d = wrapped_dim(dimension, self.dim());
  const int64_t dim_size = self.dim() == 0 ? 1 : self.size(d);
  const int64_t dim_stride = self.dim() == 0 ? 1 : self.stride(d);
  ETR_KERNEL_CHECK(ctx, size <= dim_size, Error::InvalidArgument,
                   "%s: size %lld exceeds the size %lld of dimension %zu", op,
                   static_cast<long long>(size), static_cast<long long>(dim_size), d);
  const int64_t windows = (dim_size - size) / step + 1;
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < self.dim(); ++k) sizes[k] = k == d ? windows : self.size(k);
  sizes[self.dim()] = size;
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, self.dim() + 1)));
  if (out.numel() == 0) return;
  CopyPlan plan;
  for (size_t k = 0; k < self.dim(); ++k) {
    // (windows - 1) * step <= dim_size - size, so the product cannot overflow.
    const int64_t src = k != d ? self.stride(k) : (windows > 1 ? dim_stride * step : 0);
    plan.add(sizes[k], out.stride(k), src);
  }
  plan.add(size, out.stride(self.dim()), dim_stride);
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

}  // namespace etr
