// aten::_to_copy.out and dim_order_ops::_to_dim_order_copy.out: copy self
// into out, converting to out's dtype with convert<To> (floating to integer
// as PyTorch on x86-64, see util/convert.h). The copy walks logical indices
// with each tensor's own strides, so out may use any dim order.
#include "kernels/portable/copy.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

void copy_cast(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), out.dtype(), [&](auto tag) {
                   using OT = typename decltype(tag)::type;
                   return apply_elementwise(
                       out, [](OT x) { return x; }, read_as<OT>(self));
                 }));
}

}  // namespace

Error to_copy_prepare(KernelPrepareContext& ctx, const Tensor&, bool,
                      std::optional<int64_t> memory_format, Tensor&) {
  return check_memory_format(ctx.op_name(), memory_format);
}

void to_copy_out(KernelContext& ctx, const Tensor& self, bool /*non_blocking*/,
                 std::optional<int64_t> /*memory_format*/, Tensor& out) {
  copy_cast(ctx, self, out);
}

Error to_dim_order_copy_prepare(KernelPrepareContext& ctx, const Tensor&, bool,
                                std::optional<IntArrayRef> dim_order, Tensor& out) {
  return check_dim_order(ctx.op_name(), dim_order, out);
}

void to_dim_order_copy_out(KernelContext& ctx, const Tensor& self, bool /*non_blocking*/,
                           std::optional<IntArrayRef> /*dim_order*/, Tensor& out) {
  copy_cast(ctx, self, out);
}

}  // namespace etr
