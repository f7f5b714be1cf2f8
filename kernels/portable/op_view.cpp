// Reshaping copies: aten::view_copy.out, unsqueeze_copy.out, squeeze_copy.out,
// squeeze_copy.dim_out, squeeze_copy.dims_out, expand_copy.out, and the plain
// copies alias_copy.out, detach_copy.out, lift_fresh_copy.out.
// Dtype-agnostic (element bytes are moved); any dim order on either side
// (view-like ops need at least one of input/out in the default layout).
#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// Resizes out to sizes[0..n) and copies self into it in row-major order.
void finish_reshape(KernelContext& ctx, const char* op, const Tensor& self, const int64_t* sizes,
                    size_t n, Tensor& out) {
  if (!check_copy_dtypes(ctx, op, self, out) || !resize_out(ctx, op, out, sizes, n)) return;
  ETR_KERNEL_CHECK(ctx, copy_reshape(out, self), Error::NotSupported,
                   "%s: input and out both have non-default dim orders", op);
}

// PyTorch's infer_size: resolves at most one -1 against numel.
bool infer_view_sizes(KernelContext& ctx, const char* op, IntArrayRef size, int64_t numel,
                      int64_t* sizes) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, size.size() <= kTensorMaxDim, Error::InvalidArgument,
                            "%s: %zu dims exceed the rank limit", op, size.size());
  int64_t known = 1;
  size_t infer_at = kTensorMaxDim;
  for (size_t i = 0; i < size.size(); ++i) {
    sizes[i] = size[i];
    if (size[i] == -1) {
      ETR_KERNEL_CHECK_OR_FALSE(ctx, infer_at == kTensorMaxDim, Error::InvalidArgument,
                                "%s: only one dimension can be inferred in %s", op,
                                shape_str(size).c_str());
      infer_at = i;
      continue;
    }
    ETR_KERNEL_CHECK_OR_FALSE(ctx, size[i] >= 0, Error::InvalidArgument,
                              "%s: invalid shape dimension %lld", op,
                              static_cast<long long>(size[i]));
    ETR_KERNEL_CHECK_OR_FALSE(ctx, checked_mul_i64(known, size[i], &known), Error::InvalidArgument,
                              "%s: shape %s overflows", op, shape_str(size).c_str());
  }
  if (infer_at != kTensorMaxDim) {
    ETR_KERNEL_CHECK_OR_FALSE(ctx, known != 0 && numel % known == 0, Error::InvalidArgument,
                              "%s: cannot infer -1 in shape %s for %lld elements", op,
                              shape_str(size).c_str(), static_cast<long long>(numel));
    sizes[infer_at] = numel / known;
    known = numel;
  }
  ETR_KERNEL_CHECK_OR_FALSE(ctx, known == numel, Error::InvalidArgument,
                            "%s: shape %s is invalid for input of size %lld", op,
                            shape_str(size).c_str(), static_cast<long long>(numel));
  return true;
}

}  // namespace

void view_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out) {
  constexpr const char* kOp = "aten::view_copy.out";
  int64_t sizes[kTensorMaxDim];
  if (!infer_view_sizes(ctx, kOp, size, self.numel(), sizes)) return;
  finish_reshape(ctx, kOp, self, sizes, size.size(), out);
}

void unsqueeze_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  constexpr const char* kOp = "aten::unsqueeze_copy.out";
  size_t d = 0;
  if (!wrap_dim_checked(ctx, kOp, dim, self.dim() + 1, &d)) return;
  ETR_KERNEL_CHECK(ctx, self.dim() < kTensorMaxDim, Error::InvalidArgument,
                   "%s: result would exceed the rank limit", kOp);
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0, j = 0; i <= self.dim(); ++i) sizes[i] = i == d ? 1 : self.size(j++);
  finish_reshape(ctx, kOp, self, sizes, self.dim() + 1, out);
}

namespace {

// Drops the dims flagged in `drop` that have size 1.
void squeeze_flagged(KernelContext& ctx, const char* op, const Tensor& self, const bool* drop,
                     Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  size_t n = 0;
  for (size_t i = 0; i < self.dim(); ++i) {
    if (!(drop[i] && self.size(i) == 1)) sizes[n++] = self.size(i);
  }
  finish_reshape(ctx, op, self, sizes, n, out);
}

}  // namespace

void squeeze_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  bool drop[kTensorMaxDim];
  for (size_t i = 0; i < kTensorMaxDim; ++i) drop[i] = true;
  squeeze_flagged(ctx, "aten::squeeze_copy.out", self, drop, out);
}

void squeeze_copy_dim_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  constexpr const char* kOp = "aten::squeeze_copy.dim_out";
  size_t d = 0;
  if (!wrap_dim_checked(ctx, kOp, dim, self.dim(), &d)) return;
  bool drop[kTensorMaxDim] = {};
  drop[d] = true;
  squeeze_flagged(ctx, kOp, self, drop, out);
}

void squeeze_copy_dims_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  constexpr const char* kOp = "aten::squeeze_copy.dims_out";
  bool drop[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = 0;
    if (!wrap_dim_checked(ctx, kOp, dims[i], self.dim(), &d)) return;
    ETR_KERNEL_CHECK(ctx, !drop[d], Error::InvalidArgument,
                     "%s: dim %zu appears multiple times in the list of dims", kOp, d);
    drop[d] = true;
  }
  squeeze_flagged(ctx, kOp, self, drop, out);
}

void expand_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, bool /*implicit*/,
                     Tensor& out) {
  constexpr const char* kOp = "aten::expand_copy.out";
  const size_t n = size.size();
  const size_t r = self.dim();
  ETR_KERNEL_CHECK(ctx, n >= r && n <= kTensorMaxDim, Error::InvalidArgument,
                   "%s: cannot expand %s to %zu dims", kOp, shape_str(self).c_str(), n);
  int64_t sizes[kTensorMaxDim];
  int64_t src_strides[kTensorMaxDim];
  for (size_t i = 0; i < n; ++i) {
    const bool is_new = i < n - r;
    const int64_t in_size = is_new ? 1 : self.size(i - (n - r));
    const int64_t target = (!is_new && size[i] == -1) ? in_size : size[i];
    ETR_KERNEL_CHECK(ctx, target >= 0 && (in_size == target || in_size == 1),
                     Error::InvalidArgument,
                     "%s: expanded size %lld must match existing size %lld at dim %zu (%s to %s)",
                     kOp, static_cast<long long>(size[i]), static_cast<long long>(in_size), i,
                     shape_str(self).c_str(), shape_str(size).c_str());
    sizes[i] = target;
    src_strides[i] = (is_new || in_size == 1) ? 0 : self.stride(i - (n - r));
  }
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out(ctx, kOp, out, sizes, n)) return;
  CopyPlan plan;
  for (size_t i = 0; i < n; ++i) plan.add(sizes[i], out.stride(i), src_strides[i]);
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

namespace {

void plain_copy(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out) {
  if (!check_copy_dtypes(ctx, op, self, out) || !resize_out_like(ctx, op, out, self)) return;
  copy_same_shape(out, self);
}

}  // namespace

void alias_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  plain_copy(ctx, "aten::alias_copy.out", self, out);
}

void detach_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  plain_copy(ctx, "aten::detach_copy.out", self, out);
}

void lift_fresh_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  plain_copy(ctx, "aten::lift_fresh_copy.out", self, out);
}

}  // namespace etr
