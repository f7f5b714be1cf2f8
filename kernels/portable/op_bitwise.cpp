// aten::bitwise_and / or / xor (Tensor and Scalar overloads) and
// bitwise_not, computed in the promoted integer or bool dtype (checked by
// the prepare steps) and cast to out.
#include <type_traits>

#include "kernels/portable/logical.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class BitOp { kAnd, kOr, kXor };

template <BitOp B>
struct BitFn {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      return a;  // unreachable: prepare refuses floating dtypes
    } else if constexpr (B == BitOp::kAnd) {
      return static_cast<T>(a & b);
    } else if constexpr (B == BitOp::kOr) {
      return static_cast<T>(a | b);
    } else {
      return static_cast<T>(a ^ b);
    }
  }
};

template <BitOp B>
void bitwise_tensor(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_elementwise(ctx, self, other, out, result_type(self, other), BitFn<B>());
}

template <BitOp B>
void bitwise_scalar(KernelContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  binary_scalar_elementwise(ctx, self, other, out, result_type(self, other), BitFn<B>());
}

}  // namespace

void bitwise_and_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out) {
  bitwise_tensor<BitOp::kAnd>(ctx, self, other, out);
}
void bitwise_or_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out) {
  bitwise_tensor<BitOp::kOr>(ctx, self, other, out);
}
void bitwise_xor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out) {
  bitwise_tensor<BitOp::kXor>(ctx, self, other, out);
}

void bitwise_and_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  bitwise_scalar<BitOp::kAnd>(ctx, self, other, out);
}
void bitwise_or_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  bitwise_scalar<BitOp::kOr>(ctx, self, other, out);
}
void bitwise_xor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  bitwise_scalar<BitOp::kXor>(ctx, self, other, out);
}

void bitwise_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_elementwise(ctx, self, out, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same<T, bool>::value) {
      return !x;
    } else if constexpr (std::is_integral<T>::value) {
      return static_cast<T>(~x);
    } else {
      return x;  // unreachable: prepare refuses floating inputs
    }
  });
}

}  // namespace etr
