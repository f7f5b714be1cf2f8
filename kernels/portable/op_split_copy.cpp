// Splitting copies along one dim: aten::split_copy.Tensor_out,
// split_with_sizes_copy.out and unbind_copy.int_out. Every output is
// validated and resized before any is written. Element bytes are moved (any
// dtype); any dim order. Prepare checks self's rank, dim, split_size's sign,
// the list lengths and every output's dtype and rank; run() checks what
// depends on the dim's size (output count, split sizes, which may be
// symbolic).
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

// The prepare common to the three: self has a dim `dim`; every output's
// dtype and rank.
Error split_prepare(const char* op, const Tensor& self, int64_t dim, bool drop_dim,
                    TensorList out) {
  size_t d = 0;
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 1, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  for (size_t i = 0; i < out.size(); ++i) {
    ETR_RETURN_IF_ERROR(check_range_output(op, self, drop_dim, out[i]));
  }
  return Error::Ok;
}

}  // namespace

Error split_copy_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t split_size,
                                int64_t dim, TensorList out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(split_prepare(op, self, dim, false, out));
  ETR_CHECK_OR_FAIL(split_size >= 0, Error::InvalidArgument,
                    "%s: split_size must be non-negative, got %lld", op,
                    static_cast<long long>(split_size));
  return Error::Ok;
}

Error split_with_sizes_copy_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                    IntArrayRef split_sizes, int64_t dim, TensorList out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(split_prepare(op, self, dim, false, out));
  ETR_CHECK_OR_FAIL(out.size() == split_sizes.size(), Error::InvalidArgument,
                    "%s: %zu split sizes but %zu outputs", op, split_sizes.size(), out.size());
  return Error::Ok;
}

Error unbind_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          TensorList out) {
  return split_prepare(ctx.op_name(), self, dim, true, out);
}

void split_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t split_size, int64_t dim,
                           TensorList out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  const int64_t size = self.size(d);
  // split_size 0 (non-negative: checked at load) only splits an empty dim.
  ETR_KERNEL_CHECK(ctx, split_size > 0 || size == 0, Error::InvalidArgument,
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
  const size_t d = wrapped_dim(dim, self.dim());
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
  const size_t d = wrapped_dim(dim, self.dim());
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
