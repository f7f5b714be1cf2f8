// Sub-range copies along one dim: aten::slice_copy.Tensor_out,
// select_copy.int_out, narrow_copy.out, split_copy.Tensor_out,
// split_with_sizes_copy.out, unbind_copy.int_out.
// Dtype-agnostic, any dim order. Multi-output ops validate and resize every
// output before writing any.
#include <cstdint>
#include <limits>

#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// Copies self[..., start : start + len*step : step, ...] (along `dim`) into
// out. With `drop_dim`, out lacks that dim (select) and len must be 1.
void copy_range(const Tensor& self, size_t dim, int64_t start, int64_t len, int64_t step,
                bool drop_dim, Tensor& out) {
  if (len == 0 || self.numel() == 0) return;
  CopyPlan plan;
  for (size_t d = 0, od = 0; d < self.dim(); ++d) {
    if (d != dim) {
      plan.add(self.size(d), out.stride(od++), self.stride(d));
    } else if (!drop_dim) {
      // step <= size whenever len > 1, so the product cannot overflow.
      plan.add(len, out.stride(od++), len > 1 ? self.stride(d) * step : 0);
    }
  }
  const char* src = static_cast<const char*>(self.const_data()) +
                    start * self.stride(dim) * static_cast<int64_t>(self.element_size());
  run_copy(plan, out.mutable_data(), src, self.element_size());
}

// Checks dtype and resizes out to self's sizes with `dim` set to `len`
// (or removed when drop_dim).
bool prepare_range_out(KernelContext& ctx, const char* op, const Tensor& self, size_t dim,
                       int64_t len, bool drop_dim, Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  size_t n = 0;
  for (size_t d = 0; d < self.dim(); ++d) {
    if (d != dim)
      sizes[n++] = self.size(d);
    else if (!drop_dim)
      sizes[n++] = len;
  }
  return check_copy_dtypes(ctx, op, self, out) && resize_out(ctx, op, out, sizes, n);
}

// Wraps dim for ops that need at least one dimension.
bool wrap_nonscalar_dim(KernelContext& ctx, const char* op, const Tensor& self, int64_t dim,
                        size_t* d) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, self.dim() > 0, Error::InvalidArgument,
                            "%s: cannot be applied to a 0-dim tensor", op);
  return wrap_dim_checked(ctx, op, dim, self.dim(), d);
}

}  // namespace

void slice_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                           std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                           Tensor& out) {
  constexpr const char* kOp = "aten::slice_copy.Tensor_out";
  size_t d = 0;
  if (!wrap_nonscalar_dim(ctx, kOp, self, dim, &d)) return;
  ETR_KERNEL_CHECK(ctx, step > 0, Error::InvalidArgument,
                   "%s: slice step must be positive, got %lld", kOp, static_cast<long long>(step));
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
  if (!prepare_range_out(ctx, kOp, self, d, len, false, out)) return;
  copy_range(self, d, s, len, step, false, out);
}

void select_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                         Tensor& out) {
  constexpr const char* kOp = "aten::select_copy.int_out";
  size_t d = 0;
  if (!wrap_nonscalar_dim(ctx, kOp, self, dim, &d)) return;
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, index >= -size && index < size, Error::InvalidArgument,
                   "%s: index %lld out of range for dim %zu of size %lld", kOp,
                   static_cast<long long>(index), d, static_cast<long long>(size));
  const int64_t i = index < 0 ? index + size : index;
  if (!prepare_range_out(ctx, kOp, self, d, 1, true, out)) return;
  copy_range(self, d, i, 1, 1, true, out);
}

void narrow_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                     int64_t length, Tensor& out) {
  constexpr const char* kOp = "aten::narrow_copy.out";
  size_t d = 0;
  if (!wrap_nonscalar_dim(ctx, kOp, self, dim, &d)) return;
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, start >= -size && start <= size, Error::InvalidArgument,
                   "%s: start %lld out of range for dim %zu of size %lld", kOp,
                   static_cast<long long>(start), d, static_cast<long long>(size));
  const int64_t s = start < 0 ? start + size : start;
  ETR_KERNEL_CHECK(ctx, length >= 0 && length <= size - s, Error::InvalidArgument,
                   "%s: start %lld + length %lld exceeds dim size %lld", kOp,
                   static_cast<long long>(s), static_cast<long long>(length),
                   static_cast<long long>(size));
  if (!prepare_range_out(ctx, kOp, self, d, length, false, out)) return;
  copy_range(self, d, s, length, 1, false, out);
}

namespace {

// Splits self along d into out[i] with lengths given by len_of(i); the
// lengths must cover the dim exactly (checked by the callers).
template <typename LenFn>
void split_impl(KernelContext& ctx, const char* op, const Tensor& self, size_t d, TensorList out,
                LenFn len_of) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (!prepare_range_out(ctx, op, self, d, len_of(i), false, out[i])) return;
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
  constexpr const char* kOp = "aten::split_copy.Tensor_out";
  size_t d = 0;
  if (!wrap_nonscalar_dim(ctx, kOp, self, dim, &d)) return;
  const int64_t size = self.size(d);
  ETR_KERNEL_CHECK(ctx, split_size > 0 || (split_size == 0 && size == 0), Error::InvalidArgument,
                   "%s: split_size %lld invalid for dim size %lld", kOp,
                   static_cast<long long>(split_size), static_cast<long long>(size));
  const int64_t chunks = size == 0 ? 1 : (size - 1) / split_size + 1;
  ETR_KERNEL_CHECK(ctx, static_cast<int64_t>(out.size()) == chunks, Error::InvalidArgument,
                   "%s: expected %lld outputs, got %zu", kOp, static_cast<long long>(chunks),
                   out.size());
  split_impl(ctx, kOp, self, d, out, [&](size_t i) {
    const int64_t start = static_cast<int64_t>(i) * split_size;
    return size - start < split_size ? size - start : split_size;
  });
}

void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out) {
  constexpr const char* kOp = "aten::split_with_sizes_copy.out";
  size_t d = 0;
  if (!wrap_nonscalar_dim(ctx, kOp, self, dim, &d)) return;
  ETR_KERNEL_CHECK(ctx, out.size() == split_sizes.size(), Error::InvalidArgument,
                   "%s: %zu split sizes but %zu outputs", kOp, split_sizes.size(), out.size());
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    ETR_KERNEL_CHECK(ctx, split_sizes[i] >= 0 && split_sizes[i] <= self.size(d) - total,
                     Error::InvalidArgument, "%s: split sizes %s do not sum to dim size %lld", kOp,
                     shape_str(split_sizes).c_str(), static_cast<long long>(self.size(d)));
    total += split_sizes[i];
  }
  ETR_KERNEL_CHECK(ctx, total == self.size(d), Error::InvalidArgument,
                   "%s: split sizes %s do not sum to dim size %lld", kOp,
                   shape_str(split_sizes).c_str(), static_cast<long long>(self.size(d)));
  split_impl(ctx, kOp, self, d, out, [&](size_t i) { return split_sizes[i]; });
}

void unbind_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, TensorList out) {
  constexpr const char* kOp = "aten::unbind_copy.int_out";
  size_t d = 0;
  if (!wrap_nonscalar_dim(ctx, kOp, self, dim, &d)) return;
  ETR_KERNEL_CHECK(ctx, static_cast<int64_t>(out.size()) == self.size(d), Error::InvalidArgument,
                   "%s: expected %lld outputs, got %zu", kOp, static_cast<long long>(self.size(d)),
                   out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (!prepare_range_out(ctx, kOp, self, d, 1, true, out[i])) return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    copy_range(self, d, static_cast<int64_t>(i), 1, 1, true, out[i]);
  }
}

}  // namespace etr
