// 3-D pooling over the last three dims of a [C, D, H, W] or [N, C, D, H, W]
// input, in any dim order (default or channels_last_3d):
//   aten::max_pool3d_with_indices.out (indices: per-plane (d * H + h) * W + w),
//   aten::avg_pool3d.out (ceil_mode, count_include_pad, divisor_override),
//   aten::_adaptive_avg_pool3d.out.
// Window rules as for the 2-D ops; the loops are shared (util/pool.cpp).
#include <optional>

#include "kernels/portable/pooling.h"
#include "kernels/portable/util/pool.h"

namespace etr {

Error max_pool3d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool, Tensor& out,
                                      Tensor& indices) {
  return max_pool_prepare(ctx.op_name(), self, kernel_size, stride, padding, dilation, out, indices,
                          3, kFloatingTypes);
}

void max_pool3d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices) {
  max_pool_run(ctx, self, kernel_size, stride, padding, dilation, ceil_mode, out, indices, 3);
}

Error avg_pool3d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                         IntArrayRef stride, IntArrayRef padding, bool, bool,
                         std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out, 3));
  ETR_CHECK_OR_FAIL(!divisor_override.has_value() || *divisor_override != 0, Error::InvalidArgument,
                    "%s: divisor_override must be non-zero", op);
  const int64_t one[1] = {1};
  return check_window(op, kernel_size, stride, padding, IntArrayRef(one, 1), 3);
}

void avg_pool3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, 3));
  const int64_t one[1] = {1};
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &g, 3),
                   Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, 3));
  ETR_KERNEL_TRY(ctx, avg_pool_compute(op, self, g, 3, count_include_pad, divisor_override, out));
}

Error adaptive_avg_pool3d_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  IntArrayRef output_size, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out, 3));
  ETR_CHECK_OR_FAIL(output_size.size() == 3, Error::InvalidArgument,
                    "%s: output_size must have 3 entries, got %zu", op, output_size.size());
  return Error::Ok;
}

void adaptive_avg_pool3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out) {
  const char* op = ctx.op_name();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, 3));
  // The sizes may be symbolic (computed by the program), so they are checked here.
  ETR_KERNEL_TRY(ctx, read_adaptive_output_size(op, output_size, 3, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, 3));
  ETR_KERNEL_TRY(ctx, adaptive_avg_pool_compute(op, self, g, 3, out));
}

}  // namespace etr
