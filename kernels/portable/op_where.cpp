// aten::where.self_out: out = condition ? self : other, broadcast together
// and computed in the promoted dtype of self and other.
#include "kernels/portable/logical.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

Error where_prepare(KernelPrepareContext& ctx, const Tensor& condition, const Tensor& self,
                    const Tensor& other, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype_in(ctx.op_name(), "condition", condition.dtype(),
                                     DtypeSet::of(ScalarType::Bool, ScalarType::Byte)));
  return check_can_cast(ctx.op_name(), result_type(self, other), out);
}

void where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                    const Tensor& other, Tensor& out) {
  const Tensor* ins[] = {&condition, &self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), result_type(self, other), [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   return apply_elementwise(
                       out, [](bool c, CT x, CT y) { return c ? x : y; }, read_as<bool>(condition),
                       read_as<CT>(self), read_as<CT>(other));
                 }));
}

}  // namespace etr
