// aten::max_pool2d_with_indices.out: the maximum of each (dilated) window,
// NaN winning, with its flattened H*W index; padding never wins. Every real
// dtype (integers too, as PyTorch). Any dim
// order: indices are per-plane positions h * W + w whatever the layout.
#include "kernels/portable/pooling.h"
#include "kernels/portable/util/pool.h"

namespace etr {

Error max_pool2d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool, Tensor& out,
                                      Tensor& indices) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out, 2, kRealTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_rank(op, "indices", indices, self.dim()));
  return check_window(op, kernel_size, stride, padding, dilation, 2);
}

void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices) {
  const char* op = ctx.op_name();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, 2));
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, dilation, &g, 2), Error::Internal,
                   "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, 2));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, indices, 2));
  ETR_KERNEL_TRY(ctx, max_pool_compute(op, self, g, 2, out, indices));
}

}  // namespace etr
