// aten::constant_pad_nd.out: pad (or, with negative amounts, crop) the last
// len(pad)/2 dims; pad[0], pad[1] apply to the last dim, pad[2], pad[3] to
// the one before, and so on. Out is filled with `value`, then the kept part
// of the input is copied into place (value converted with convert<T>).
// Real dtypes and bool, any dim order.
#include <algorithm>

#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {

// Load: the pad list's length (its values may be symbolic and are checked in run()).
Error constant_pad_nd_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef pad,
                              Scalar, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t r = self.dim();
  ETR_CHECK_OR_FAIL(pad.size() % 2 == 0 && pad.size() / 2 <= r, Error::InvalidArgument,
                    "%s: pad length %zu must be even and at most 2 * rank (%zu)", op, pad.size(),
                    2 * r);
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, r);
}

void constant_pad_nd_out(KernelContext& ctx, const Tensor& self, IntArrayRef pad, Scalar value,
                         Tensor& out) {
  const char* op = ctx.op_name();
  const size_t r = self.dim();
  int64_t before[kTensorMaxDim] = {};
  int64_t after[kTensorMaxDim] = {};
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d < r; ++d) {
    const size_t k = r - 1 - d;  // pad pair index for dim d
    if (2 * k < pad.size()) {
      before[d] = pad[2 * k];
      after[d] = pad[2 * k + 1];
    }
    const int64_t in = self.size(d);
    const bool ok = before[d] >= -in - INT32_MAX && before[d] <= INT32_MAX &&
                    after[d] >= -in - INT32_MAX && after[d] <= INT32_MAX;
    sizes[d] = ok ? in + before[d] + after[d] : -1;
    ETR_KERNEL_CHECK(ctx, sizes[d] >= 0, Error::InvalidArgument,
                     "%s: padding %s on %s gives a negative size at dim %zu", op,
                     ShapeText(pad).c_str(), ShapeText(self).c_str(), d);
  }
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, r)));
  CopyPlan fill;
  for (size_t d = 0; d < r; ++d) fill.add(sizes[d], out.stride(d), 0);
  const bool filled = fill_with_scalar(fill, out.mutable_data(), out.dtype(), value);
  ETR_KERNEL_TRY(ctx, check_dispatched(op, filled, out.dtype()));
  // Region kept from the input: skip -before (if cropping) at the front,
  // land at +before (if padding) in the output.
  CopyPlan plan;
  int64_t src_off = 0, dst_off = 0;
  for (size_t d = 0; d < r; ++d) {
    const int64_t skip_front = std::max<int64_t>(0, -before[d]);
    const int64_t skip_back = std::max<int64_t>(0, -after[d]);
    const int64_t keep = self.size(d) - skip_front - skip_back;
    if (keep <= 0) return;
    src_off += skip_front * self.stride(d);
    dst_off += std::max<int64_t>(0, before[d]) * out.stride(d);
    plan.add(keep, out.stride(d), self.stride(d));
  }
  const int64_t elem = static_cast<int64_t>(self.element_size());
  run_copy(plan, static_cast<char*>(out.mutable_data()) + dst_off * elem,
           static_cast<const char*>(self.const_data()) + src_off * elem, self.element_size());
}

}  // namespace etr
