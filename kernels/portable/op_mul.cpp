// aten::mul: out = self * other in the promoted dtype (bool: logical and).
#include "kernels/portable/arithmetic.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

void mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_elementwise(ctx, self, other, out, result_type(self, other),
                     [](auto x, auto y) { return mul_wrap(x, y); });
}

void mul_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  binary_scalar_elementwise(ctx, self, other, out, result_type(self, other),
                            [](auto x, auto y) { return mul_wrap(x, y); });
}

}  // namespace etr
