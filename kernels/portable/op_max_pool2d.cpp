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
  return max_pool_prepare(ctx.op_name(), self, kernel_size, stride, padding, dilation, out, indices,
                          2, kRealTypes);
}

void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices) {
  max_pool_run(ctx, self, kernel_size, stride, padding, dilation, ceil_mode, out, indices, 2);
}

}  // namespace etr
