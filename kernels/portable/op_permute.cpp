// Dim-reordering copies: aten::permute_copy.out, transpose_copy.int_out,
// t_copy.out, flip.out, pixel_shuffle.out, pixel_unshuffle.out.
// Each builds a CopyPlan over the output's logical dims that reads the input
// through permuted / negated / split strides. Dtype-agnostic, any dim order.
#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// out = self with dims reordered by perm (perm[i] = input dim of output dim i).
void permute_impl(KernelContext& ctx, const char* op, const Tensor& self, const size_t* perm,
                  Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) sizes[i] = self.size(perm[i]);
  if (!check_copy_dtypes(ctx, op, self, out) || !resize_out(ctx, op, out, sizes, self.dim())) {
    return;
  }
  CopyPlan plan;
  for (size_t i = 0; i < self.dim(); ++i) plan.add(sizes[i], out.stride(i), self.stride(perm[i]));
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

}  // namespace

void permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  constexpr const char* kOp = "aten::permute_copy.out";
  ETR_KERNEL_CHECK(ctx, dims.size() == self.dim(), Error::InvalidArgument,
                   "%s: %zu dims given for a %zu-d tensor", kOp, dims.size(), self.dim());
  size_t perm[kTensorMaxDim];
  bool seen[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!wrap_dim_checked(ctx, kOp, dims[i], self.dim(), &perm[i])) return;
    ETR_KERNEL_CHECK(ctx, !seen[perm[i]], Error::InvalidArgument, "%s: dim %zu repeated in dims",
                     kOp, perm[i]);
    seen[perm[i]] = true;
  }
  permute_impl(ctx, kOp, self, perm, out);
}

void transpose_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim0, int64_t dim1,
                            Tensor& out) {
  constexpr const char* kOp = "aten::transpose_copy.int_out";
  size_t d0 = 0, d1 = 0;
  if (!wrap_dim_checked(ctx, kOp, dim0, self.dim(), &d0) ||
      !wrap_dim_checked(ctx, kOp, dim1, self.dim(), &d1)) {
    return;
  }
  size_t perm[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) perm[i] = i;
  if (self.dim() > 0) {
    perm[d0] = d1;
    perm[d1] = d0;
  }
  permute_impl(ctx, kOp, self, perm, out);
}

void t_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  constexpr const char* kOp = "aten::t_copy.out";
  ETR_KERNEL_CHECK(ctx, self.dim() <= 2, Error::InvalidArgument,
                   "%s: expects a tensor with <= 2 dims, got %s", kOp, shape_str(self).c_str());
  const size_t perm[2] = {self.dim() == 2 ? 1u : 0u, 0u};
  permute_impl(ctx, kOp, self, perm, out);
}

void flip_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  constexpr const char* kOp = "aten::flip.out";
  bool flip[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = 0;
    if (!wrap_dim_checked(ctx, kOp, dims[i], self.dim(), &d)) return;
    ETR_KERNEL_CHECK(ctx, !flip[d], Error::InvalidArgument, "%s: dim %zu appears multiple times",
                     kOp, d);
    flip[d] = true;
  }
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out_like(ctx, kOp, out, self)) return;
  if (self.numel() == 0) return;
  CopyPlan plan;
  int64_t src_offset = 0;
  for (size_t i = 0; i < self.dim(); ++i) {
    const int64_t s = self.stride(i);
    if (flip[i] && self.size(i) > 1) src_offset += (self.size(i) - 1) * s;
    plan.add(self.size(i), out.stride(i), flip[i] ? -s : s);
  }
  const char* src = static_cast<const char*>(self.const_data()) +
                    src_offset * static_cast<int64_t>(self.element_size());
  run_copy(plan, out.mutable_data(), src, self.element_size());
}

namespace {

// Validates a shuffle factor and returns factor^2 through *sq.
bool check_factor(KernelContext& ctx, const char* op, const Tensor& self, int64_t factor,
                  int64_t* sq) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, self.dim() >= 3, Error::InvalidArgument,
                            "%s: input must have at least 3 dims, got %s", op,
                            shape_str(self).c_str());
  ETR_KERNEL_CHECK_OR_FALSE(ctx, factor > 0 && factor <= INT32_MAX, Error::InvalidArgument,
                            "%s: factor must be positive, got %lld", op,
                            static_cast<long long>(factor));
  *sq = factor * factor;
  return true;
}

}  // namespace

void pixel_shuffle_out(KernelContext& ctx, const Tensor& self, int64_t upscale_factor,
                       Tensor& out) {
  constexpr const char* kOp = "aten::pixel_shuffle.out";
  int64_t ff = 0;
  if (!check_factor(ctx, kOp, self, upscale_factor, &ff)) return;
  const size_t r = self.dim();
  const int64_t f = upscale_factor, c = self.size(r - 3), h = self.size(r - 2),
                w = self.size(r - 1);
  ETR_KERNEL_CHECK(ctx, c % ff == 0, Error::InvalidArgument,
                   "%s: channels %lld not divisible by upscale_factor^2 = %lld", kOp,
                   static_cast<long long>(c), static_cast<long long>(ff));
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d + 3 < r; ++d) sizes[d] = self.size(d);
  sizes[r - 3] = c / ff;
  sizes[r - 2] = h * f;
  sizes[r - 1] = w * f;
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out(ctx, kOp, out, sizes, r)) return;
  if (self.numel() == 0) return;
  // out[.., oc, y*f+i, x*f+j] = in[.., oc*f*f + i*f + j, y, x]
  CopyPlan plan;
  for (size_t d = 0; d + 3 < r; ++d) plan.add(sizes[d], out.stride(d), self.stride(d));
  const int64_t sc = self.stride(r - 3), oh = out.stride(r - 2), ow = out.stride(r - 1);
  plan.add(c / ff, out.stride(r - 3), sc * ff);
  plan.add(h, oh * f, self.stride(r - 2));
  plan.add(f, oh, sc * f);
  plan.add(w, ow * f, self.stride(r - 1));
  plan.add(f, ow, sc);
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

void pixel_unshuffle_out(KernelContext& ctx, const Tensor& self, int64_t downscale_factor,
                         Tensor& out) {
  constexpr const char* kOp = "aten::pixel_unshuffle.out";
  int64_t ff = 0;
  if (!check_factor(ctx, kOp, self, downscale_factor, &ff)) return;
  const size_t r = self.dim();
  const int64_t f = downscale_factor, c = self.size(r - 3), h = self.size(r - 2),
                w = self.size(r - 1);
  ETR_KERNEL_CHECK(ctx, h % f == 0 && w % f == 0, Error::InvalidArgument,
                   "%s: spatial dims of %s not divisible by downscale_factor %lld", kOp,
                   shape_str(self).c_str(), static_cast<long long>(f));
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d + 3 < r; ++d) sizes[d] = self.size(d);
  ETR_KERNEL_CHECK(ctx, checked_mul_i64(c, ff, &sizes[r - 3]), Error::InvalidArgument,
                   "%s: output channels overflow", kOp);
  sizes[r - 2] = h / f;
  sizes[r - 1] = w / f;
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out(ctx, kOp, out, sizes, r)) return;
  if (self.numel() == 0) return;
  // out[.., c*f*f + i*f + j, y, x] = in[.., c, y*f+i, x*f+j]
  CopyPlan plan;
  for (size_t d = 0; d + 3 < r; ++d) plan.add(sizes[d], out.stride(d), self.stride(d));
  const int64_t oc = out.stride(r - 3), sh = self.stride(r - 2), sw = self.stride(r - 1);
  plan.add(c, oc * ff, self.stride(r - 3));
  plan.add(f, oc * f, sh);
  plan.add(f, oc, sw);
  plan.add(h / f, out.stride(r - 2), sh * f);
  plan.add(w / f, out.stride(r - 1), sw * f);
  run_copy(plan, out.mutable_data(), self.const_data(), self.element_size());
}

}  // namespace etr
