// aten::masked_fill.Scalar_out: out = mask ? value : self, with mask
// broadcast to self and value converted to self's dtype.
#include "kernels/portable/logical.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

Error masked_fill_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mask, Scalar,
                          Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "mask", mask, ScalarType::Bool));
  return check_can_cast(ctx.op_name(), self.dtype(), out);
}

void masked_fill_scalar_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                            Scalar value, Tensor& out) {
  const Tensor* ins[] = {&self, &mask};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), self.dtype(), [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const CT v = scalar_to<CT>(value);
                   return apply_elementwise(
                       out, [v](CT x, bool m) { return m ? v : x; }, read_as<CT>(self),
                       read_as<bool>(mask));
                 }));
}

}  // namespace etr
