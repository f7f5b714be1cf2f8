// aten::avg_pool2d.out and aten::_adaptive_avg_pool2d.out: window means
// accumulated in double. avg_pool2d's divisor is divisor_override, else the
// window size with padding (count_include_pad) or without; adaptive windows
// are [floor(i * in / out), ceil((i + 1) * in / out)). Any dim order (the
// loops in util/pool.cpp address every operand through its strides).
#include <optional>

#include "kernels/portable/pooling.h"
#include "kernels/portable/util/pool.h"

namespace etr {

Error avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                         IntArrayRef stride, IntArrayRef padding, bool, bool,
                         std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out, 2));
  ETR_CHECK_OR_FAIL(!divisor_override.has_value() || *divisor_override != 0, Error::InvalidArgument,
                    "%s: divisor_override must be non-zero", op);
  const int64_t one[1] = {1};
  return check_window(op, kernel_size, stride, padding, IntArrayRef(one, 1), 2);
}

void avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out) {
  const char* op = ctx.op_name();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, 2));
  const int64_t one[1] = {1};
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, IntArrayRef(one, 1), &g, 2),
                   Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, 2));
  ETR_KERNEL_TRY(ctx, avg_pool_compute(op, self, g, 2, count_include_pad, divisor_override, out));
}

Error adaptive_avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  IntArrayRef output_size, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out, 2));
  ETR_CHECK_OR_FAIL(output_size.size() == 2, Error::InvalidArgument,
                    "%s: output_size must have 2 entries, got %zu", op, output_size.size());
  return Error::Ok;
}

void adaptive_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out) {
  const char* op = ctx.op_name();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, 2));
  // The sizes may be symbolic (computed by the program), so they are checked here.
  ETR_KERNEL_TRY(ctx, read_adaptive_output_size(op, output_size, 2, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, 2));
  ETR_KERNEL_TRY(ctx, adaptive_avg_pool_compute(op, self, g, 2, out));
}

}  // namespace etr
