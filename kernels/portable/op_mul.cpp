// aten::mul: out = self * other in the promoted dtype (bool: logical and).
#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

void mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  constexpr const char* kOp = "aten::mul.out";
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(kOp, self, other, out, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, [](CT x, CT y) { return mul_wrap(x, y); }, read_as<CT>(self),
                      read_as<CT>(other));
  });
}

void mul_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  constexpr const char* kOp = "aten::mul.Scalar_out";
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(kOp, self, other, out, &common))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT y = scalar_to<CT>(other);
    apply_elementwise(out, [y](CT x) { return mul_wrap(x, y); }, read_as<CT>(self));
  });
}

}  // namespace etr
