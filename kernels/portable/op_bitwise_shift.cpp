// aten::bitwise_left_shift / bitwise_right_shift (Tensor and Tensor_Scalar
// overloads), computed in the promoted integer dtype (bool and floating are
// refused at load) and cast to out. Shift counts outside [0, bit width) give
// what PyTorch gives on x86-64: 0 for a left shift, the sign fill for a
// right shift (a count is read in the compute dtype, so a uint8 count of 128
// and more counts as negative; a Scalar count wraps into that dtype first).
#include <climits>
#include <type_traits>

#include "kernels/portable/logical.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

struct ShiftLeft {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
      using S = std::make_signed_t<T>;
      using U = std::make_unsigned_t<T>;
      constexpr int kBits = static_cast<int>(sizeof(T) * CHAR_BIT);
      if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= kBits) return T(0);
      // Shift the unsigned value (a negative a is not UB), then wrap back.
      return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
    } else {
      return a;  // unreachable: prepare refuses bool and floating dtypes
    }
  }
};

struct ShiftRight {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
      using S = std::make_signed_t<T>;
      // Signed values keep their sign bit: the largest shift is width - 1.
      constexpr int kMax =
          static_cast<int>(sizeof(T) * CHAR_BIT) - (std::is_signed<T>::value ? 1 : 0);
      if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= kMax) {
        return static_cast<T>(a >> kMax);
      }
      return static_cast<T>(a >> b);
    } else {
      return a;  // unreachable: prepare refuses bool and floating dtypes
    }
  }
};

// The promoted dtype must be an integer type (not bool) castable to out.
Error check_shift_types(const char* op, ScalarType common, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_integral_or_bool(op, common));
  ETR_RETURN_IF_ERROR(check_not_bool(op, common));
  return check_can_cast(op, common, out);
}

}  // namespace

Error shift_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out) {
  return check_shift_types(ctx.op_name(), result_type(self, other), out);
}

Error shift_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                           Tensor& out) {
  return check_shift_types(ctx.op_name(), result_type(self, other), out);
}

void bitwise_left_shift_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                                   Tensor& out) {
  binary_elementwise<ComputeTypes::kReal>(ctx, self, other, out, result_type(self, other),
                                          ShiftLeft());
}

void bitwise_left_shift_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other,
                                   Tensor& out) {
  binary_scalar_elementwise<ComputeTypes::kReal>(ctx, self, other, out, result_type(self, other),
                                                 ShiftLeft());
}

void bitwise_right_shift_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                                    Tensor& out) {
  binary_elementwise<ComputeTypes::kReal>(ctx, self, other, out, result_type(self, other),
                                          ShiftRight());
}

void bitwise_right_shift_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other,
                                    Tensor& out) {
  binary_scalar_elementwise<ComputeTypes::kReal>(ctx, self, other, out, result_type(self, other),
                                                 ShiftRight());
}

}  // namespace etr
