// aten::neg, aten::abs and aten::sign, computed in self's dtype and cast to
// out. Integer neg/abs wrap (abs(INT_MIN) == INT_MIN, as PyTorch).
#include <cmath>
#include <type_traits>

#include "kernels/portable/unary.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

void neg_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_elementwise<ComputeTypes::kReal>(ctx, self, out, [](auto x) { return neg_wrap(x); });
}

void abs_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_elementwise<ComputeTypes::kReal>(ctx, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point<T>::value) {
      return std::fabs(x);
    } else if constexpr (std::is_signed<T>::value) {
      return x < T(0) ? neg_wrap(x) : x;
    } else {
      return x;
    }
  });
}

void sign_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // NaN gives 0, as PyTorch.
  unary_elementwise(ctx, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value) {
      return x;
    } else {
      return static_cast<T>((T(0) < x) - (x < T(0)));
    }
  });
}

}  // namespace etr
