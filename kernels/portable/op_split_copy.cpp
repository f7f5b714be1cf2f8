// Splitting copies along one dim: aten::split_copy.Tensor_out,
// split_with_sizes_copy.out and unbind_copy.int_out. Every output is
// validated and resized before any is written. Element bytes are moved (any
// dtype); any dim order.
#include <cstdint>

#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// Splits self along d into out[i] with lengths given by len_of(i); the
// lengths must cover the dim exactly (checked by the callers).
template <typename LenFn>
void split_impl(KernelContext& ctx, const Tensor& self, size_t d, TensorList out, LenFn len_of) {
  for (size_t i = 0; i < out.size(); ++i) {
    ETR_KERNEL_TRY(ctx, resize_range_output(ctx.op_name(), self, d, len_of(i), false, out[i]));
  }
  int64_t start = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    copy_range(self, d, start, len_of(i), 1, false, out[i]);
    start += len_of(i);
  }
}

}  // namespace

void split_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t split_size, int64_t dim,
                           TensorList out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_KERNEL_TRY(ctx, check_rank_in(op, "self", self, 1, kTensorMaxDim));
  ETR_KERNEL_TRY(ctx, wrap_dim(op, dim, self.dim(), &d));
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, split_size > 0 || (split_size == 0 && size == 0), Error::InvalidArgument,
                   "%s: split_size %lld invalid for dim size %lld", op,
                   static_cast<long long>(split_size), static_cast<long long>(size));
  const int64_t chunks = size == 0 ? 1 : (size - 1) / split_size + 1;
  ETR_KERNEL_CHECK(ctx, static_cast<int64_t>(out.size()) == chunks, Error::InvalidArgument,
                   "%s: expected %lld outputs, got %zu", op, static_cast<long long>(chunks),
                   out.size());
  split_impl(ctx, self, d, out, [&](size_t i) {
    const int64_t start = static_cast<int64_t>(i) * split_size;
    return size - start < split_size ? size - start : split_size;
  });
}

void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_KERNEL_TRY(ctx, check_rank_in(op, "self", self, 1, kTensorMaxDim));
  ETR_KERNEL_TRY(ctx, wrap_dim(op, dim, self.dim(), &d));
  ETR_KERNEL_CHECK(ctx, out.size() == split_sizes.size(), Error::InvalidArgument,
                   "%s: %zu split sizes but %zu outputs", op, split_sizes.size(), out.size());
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    ETR_KERNEL_CHECK(ctx, split_sizes[i] >= 0 && split_sizes[i] <= self.size(d) - total,
                     Error::InvalidArgument, "%s: split sizes %s do not sum to dim size %lld", op,
                     ShapeText(split_sizes).c_str(), static_cast<long long>(self.size(d)));
    total += split_sizes[i];
  }
  ETR_KERNEL_CHECK(ctx, total == self.size(d), Error::InvalidArgument,
                   "%s: split sizes %s do not sum to dim size %lld", op,
                   ShapeText(split_sizes).c_str(), static_cast<long long>(self.size(d)));
  split_impl(ctx, self, d, out, [&](size_t i) { return split_sizes[i]; });
}

void unbind_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, TensorList out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_KERNEL_TRY(ctx, check_rank_in(op, "self", self, 1, kTensorMaxDim));
  ETR_KERNEL_TRY(ctx, wrap_dim(op, dim, self.dim(), &d));
  ETR_KERNEL_CHECK(ctx, static_cast<int64_t>(out.size()) == self.size(d), Error::InvalidArgument,
                   "%s: expected %lld outputs, got %zu", op, static_cast<long long>(self.size(d)),
                   out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    ETR_KERNEL_TRY(ctx, resize_range_output(op, self, d, 1, true, out[i]));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    copy_range(self, d, static_cast<int64_t>(i), 1, 1, true, out[i]);
  }
}

}  // namespace etr
