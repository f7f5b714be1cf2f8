// aten::ceil, floor, round and trunc: floating inputs are rounded in their
// own dtype (round: half to even, as PyTorch); integers pass through.
#include <cmath>
#include <type_traits>

#include "kernels/portable/unary.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Applies a floating rounding function; integers pass through unchanged.
template <typename Fn>
void round_with(KernelContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  unary_elementwise<ComputeTypes::kReal>(ctx, self, out, [fn](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return fn(x);
    } else {
      return x;
    }
  });
}

}  // namespace

void ceil_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  round_with(ctx, self, out, [](auto x) { return std::ceil(x); });
}

void floor_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  round_with(ctx, self, out, [](auto x) { return std::floor(x); });
}

void round_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  // nearbyint in the default rounding mode is half to even.
  round_with(ctx, self, out, [](auto x) { return std::nearbyint(x); });
}

void trunc_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  round_with(ctx, self, out, [](auto x) { return std::trunc(x); });
}

}  // namespace etr
