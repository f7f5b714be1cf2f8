// Sub-range copies along one dim: aten::slice_copy.Tensor_out,
// select_copy.int_out and narrow_copy.out. Element bytes are moved (any
// dtype); any dim order. Prepare checks self's rank, dim, step and out's
// dtype and rank; start, end, index and length may be symbolic, so they are
// checked against the dim's size in run().
#include <cstdint>
#include <limits>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// The prepare common to the three: self has a dim `dim`; out's dtype and rank.
Error range_prepare(const char* op, const Tensor& self, int64_t dim, bool drop_dim,
                    const Tensor& out) {
  size_t d = 0;
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 1, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  return check_range_output(op, self, drop_dim, out);
}

}  // namespace

Error slice_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                         std::optional<int64_t>, std::optional<int64_t>, int64_t step,
                         Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(range_prepare(op, self, dim, false, out));
  ETR_CHECK_OR_FAIL(step > 0, Error::InvalidArgument, "%s: slice step must be positive, got %lld",
                    op, static_cast<long long>(step));
  return Error::Ok;
}

Error select_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, int64_t,
                          Tensor& out) {
  return range_prepare(ctx.op_name(), self, dim, true, out);
}

Error narrow_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, int64_t,
                          int64_t, Tensor& out) {
  return range_prepare(ctx.op_name(), self, dim, false, out);
}

void slice_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                           std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                           Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  // PyTorch clamping: negative bounds count from the end, then clamp to [0, size].
  const int64_t size = self.size(d);
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(std::numeric_limits<int64_t>::max());
  if (s < 0) s += size;
  if (e < 0) e += size;
  if (s < 0)
    s = 0;
  else if (s >= size)
    s = size;
  if (e < s)
    e = s;
  else if (e >= size)
    e = size;
  const int64_t len = e == s ? 0 : (e - s - 1) / step + 1;
  ETR_KERNEL_TRY(ctx, resize_range_output(op, self, d, len, false, out));
  copy_range(self, d, s, len, step, false, out);
}

void select_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                         Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, index >= -size && index < size, Error::InvalidArgument,
                   "%s: index %lld out of range for dim %zu of size %lld", op,
                   static_cast<long long>(index), d, static_cast<long long>(size));
  const int64_t i = index < 0 ? index + size : index;
  ETR_KERNEL_TRY(ctx, resize_range_output(op, self, d, 1, true, out));
  copy_range(self, d, i, 1, 1, true, out);
}

void narrow_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                     int64_t length, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, start >= -size && start <= size, Error::InvalidArgument,
                   "%s: start %lld out of range for dim %zu of size %lld", op,
                   static_cast<long long>(start), d, static_cast<long long>(size));
  const int64_t s = start < 0 ? start + size : start;
  ETR_KERNEL_CHECK(ctx, length >= 0 && length <= size - s, Error::InvalidArgument,
                   "%s: start %lld + length %lld exceeds dim size %lld", op,
                   static_cast<long long>(s), static_cast<long long>(length),
                   static_cast<long long>(size));
  ETR_KERNEL_TRY(ctx, resize_range_output(op, self, d, length, false, out));
  copy_range(self, d, s, length, 1, false, out);
}

}  // namespace etr
