// aten::maximum and aten::minimum: elementwise max / min in the promoted
// dtype; a NaN operand wins (bool: or / and).
#include "kernels/portable/arithmetic.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

template <bool kMax>
void max_min(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_elementwise(ctx, self, other, out, result_type(self, other), [](auto x, auto y) {
    return kMax ? max_propagate_nan(x, y) : min_propagate_nan(x, y);
  });
}

}  // namespace

void maximum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  max_min<true>(ctx, self, other, out);
}

void minimum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  max_min<false>(ctx, self, other, out);
}

}  // namespace etr
