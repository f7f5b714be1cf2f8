// aten::pixel_shuffle.out and aten::pixel_unshuffle.out: move channel
// blocks of factor^2 into (out of) factor x factor spatial tiles. Each
// output dim is split into loop pairs that read the input through split
// strides. Element bytes are moved (any dtype); any dim order.
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// The prepare of both: self has 3 or more dims, the factor is positive (and
// fits int32, so factor^2 cannot overflow), out has self's dtype and rank.
Error shuffle_prepare(const char* op, const Tensor& self, int64_t factor, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", self, 3, kTensorMaxDim));
  ETR_CHECK_OR_FAIL(factor > 0 && factor <= INT32_MAX, Error::InvalidArgument,
                    "%s: factor must be positive, got %lld", op, static_cast<long long>(factor));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

}  // namespace

Error pixel_shuffle_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t upscale_factor,
                            Tensor& out) {
  return shuffle_prepare(ctx.op_name(), self, upscale_factor, out);
}

Error pixel_unshuffle_prepare(KernelPrepareContext& ctx, const Tensor& self,
                              int64_t downscale_factor, Tensor& out) {
  return shuffle_prepare(ctx.op_name(), self, downscale_factor, out);
}

void pixel_shuffle_out(KernelContext& ctx, const Tensor& self, int64_t upscale_factor,
                       Tensor& out) {
  const char* op = ctx.op_name();
  const int64_t ff = upscale_factor * upscale_factor;
  const size_t r = self.dim();
  const int64_t f = upscale_factor, c = self.size(r - 3), h = self.size(r - 2),
                w = self.size(r - 1);
  ETR_KERNEL_CHECK(ctx, c % ff == 0, Error::InvalidArgument,
                   "%s: channels %lld not divisible by upscale_factor^2 = %lld", op,
                   static_cast<long long>(c), static_cast<long long>(ff));
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d + 3 < r; ++d) sizes[d] = self.size(d);
  sizes[r - 3] = c / ff;
  sizes[r - 2] = h * f;
  sizes[r - 1] = w * f;
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, r)));
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
  const char* op = ctx.op_name();
  const int64_t ff = downscale_factor * downscale_factor;
  const size_t r = self.dim();
  const int64_t f = downscale_factor, c = self.size(r - 3), h = self.size(r - 2),
                w = self.size(r - 1);
  ETR_KERNEL_CHECK(ctx, h % f == 0 && w % f == 0, Error::InvalidArgument,
                   "%s: spatial dims of %s not divisible by downscale_factor %lld", op,
                   ShapeText(self).c_str(), static_cast<long long>(f));
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d + 3 < r; ++d) sizes[d] = self.size(d);
  ETR_KERNEL_CHECK(ctx, checked_mul_i64(c, ff, &sizes[r - 3]), Error::InvalidArgument,
                   "%s: output channels overflow", op);
  sizes[r - 2] = h / f;
  sizes[r - 1] = w / f;
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, r)));
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
