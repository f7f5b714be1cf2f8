// aten::atan2: atan2(self, other) in the promoted floating dtype (integers
// and bool compute in Float).
#include <cmath>

#include "kernels/portable/arithmetic.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

void atan2_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_elementwise<ComputeTypes::kFloating>(
      ctx, self, other, out, float_compute_type(result_type(self, other)),
      [](auto x, auto y) { return static_cast<decltype(x)>(std::atan2(x, y)); });
}

}  // namespace etr
