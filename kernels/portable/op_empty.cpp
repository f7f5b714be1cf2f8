// aten::empty.out and dim_order_ops::_empty_dim_order.out: out is resized to
// the requested shape and its elements are left as they are (empty promises
// no values). Prepare checks out's rank against the size list's length and
// the memory_format / dim_order argument; the sizes may be symbolic, so
// resize_output checks them in run().
#include "kernels/portable/copy.h"
#include "kernels/portable/creation.h"
#include "kernels/portable/util/checks.h"

namespace etr {

Error empty_prepare(KernelPrepareContext& ctx, IntArrayRef size,
                    std::optional<int64_t> memory_format, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_memory_format(ctx.op_name(), memory_format));
  return check_rank(ctx.op_name(), "out", out, size.size());
}

void empty_out(KernelContext& ctx, IntArrayRef size, std::optional<int64_t>, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, size));
}

Error empty_dim_order_prepare(KernelPrepareContext& ctx, IntArrayRef size,
                              std::optional<IntArrayRef> dim_order, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_rank(ctx.op_name(), "out", out, size.size()));
  return check_dim_order(ctx.op_name(), dim_order, out);
}

void empty_dim_order_out(KernelContext& ctx, IntArrayRef size, std::optional<IntArrayRef>,
                         Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, size));
}

}  // namespace etr
