// aten::copy.out and the in-place aten::copy_: the destination (already of
// self's shape) <- src broadcast to it and converted to its dtype with
// convert<To> (bytes moved when the dtypes are equal).
#include "kernels/portable/copy.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// src can be written into a tensor of `dst`: the same dtype, or both real or bool.
Error check_copy_dtypes(const char* op, ScalarType dst, ScalarType src) {
  const bool convertible = kRealAndBoolTypes.contains(dst) && kRealAndBoolTypes.contains(src);
  ETR_CHECK_OR_FAIL(dst == src || convertible, Error::InvalidType, "%s: cannot copy %s into %s", op,
                    to_string(src), to_string(dst));
  return Error::Ok;
}

// dst (already sized) <- src broadcast to dst's shape, converted to dst's dtype.
void broadcast_copy(KernelContext& ctx, Tensor& dst, const Tensor& src) {
  const char* op = ctx.op_name();
  const size_t r = dst.dim();
  ETR_KERNEL_CHECK(ctx, src.dim() <= r, Error::InvalidArgument,
                   "%s: src %s cannot be broadcast to %s", op, ShapeText(src).c_str(),
                   ShapeText(dst).c_str());
  CopyPlan plan;
  for (size_t i = 0; i < r; ++i) {
    const size_t lead = r - src.dim();
    int64_t stride = 0;
    if (i >= lead) {
      const int64_t s = src.size(i - lead);
      ETR_KERNEL_CHECK(ctx, s == dst.size(i) || s == 1, Error::InvalidArgument,
                       "%s: src %s cannot be broadcast to %s", op, ShapeText(src).c_str(),
                       ShapeText(dst).c_str());
      stride = s == 1 ? 0 : src.stride(i - lead);
    }
    plan.add(dst.size(i), dst.stride(i), stride);
  }
  const bool copied =
      run_convert_copy(plan, dst.mutable_data(), dst.dtype(), src.const_data(), src.dtype());
  ETR_KERNEL_TRY(ctx, check_dispatched(op, copied, src.dtype()));
}

}  // namespace

Error copy_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& src, bool,
                   Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, self.dtype()));
  return check_copy_dtypes(ctx.op_name(), out.dtype(), src.dtype());
}

void copy_out(KernelContext& ctx, const Tensor& self, const Tensor& src, bool /*non_blocking*/,
              Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  broadcast_copy(ctx, out, src);
}

Error copy_inplace_prepare(KernelPrepareContext& ctx, Tensor& self, const Tensor& src, bool) {
  return check_copy_dtypes(ctx.op_name(), self.dtype(), src.dtype());
}

void copy_inplace(KernelContext& ctx, Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  broadcast_copy(ctx, self, src);
}

}  // namespace etr
