// aten::max_pool2d_with_indices.out: the maximum of each (dilated) window,
// NaN winning, with its flattened H*W index; padding never wins.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/portable/pooling.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/pool.h"

namespace etr {
namespace {

template <typename T>
void max_pool_plane(const PoolGeom& g, const T* in, T* out, int64_t* idx) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      max_window(g, in, oh, ow, &out[oh * g.ow + ow], &idx[oh * g.ow + ow]);
    }
  }
}

}  // namespace

Error max_pool2d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool, Tensor& out,
                                      Tensor& indices) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out));
  ETR_RETURN_IF_ERROR(check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "indices", indices));
  return check_window(op, kernel_size, stride, padding, dilation);
}

void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Long, {&indices}));
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g));
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, dilation, &g), Error::Internal,
                   "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, indices));
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
    for (int64_t p = 0; p < g.planes; ++p) {
      max_pool_plane(g, self.const_data_ptr<T>() + p * in_plane, out.data_ptr<T>() + p * out_plane,
                     indices.data_ptr<int64_t>() + p * out_plane);
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
}

}  // namespace etr
