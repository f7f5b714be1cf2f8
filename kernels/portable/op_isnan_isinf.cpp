// aten::isnan and aten::isinf: true for NaN / +-inf floating elements, false
// for every integer and bool; written in out's dtype (normally Bool).
#include <cmath>
#include <type_traits>

#include "kernels/portable/unary.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {

void isnan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_predicate(ctx, self, out, [](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return std::isnan(x);
    } else {
      return false;
    }
  });
}

void isinf_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_predicate(ctx, self, out, [](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return std::isinf(x);
    } else {
      return false;
    }
  });
}

}  // namespace etr
