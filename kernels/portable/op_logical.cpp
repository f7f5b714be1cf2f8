// Logical and bitwise binary ops, where and masked_fill.
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class BitOp { kAnd, kOr, kXor };

template <BitOp B>
struct BitFn {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      return a;  // unreachable: floating dtypes are rejected before dispatch
    } else if constexpr (B == BitOp::kAnd) {
      return static_cast<T>(a & b);
    } else if constexpr (B == BitOp::kOr) {
      return static_cast<T>(a | b);
    } else {
      return static_cast<T>(a ^ b);
    }
  }
};

// Logical ops read every operand as bool ("!= 0"); out may have any dtype.
template <BitOp B>
void logical(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& other,
             Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(op, self, other, out, &common))) return;
  apply_elementwise(out, BitFn<B>(), read_as<bool>(self), read_as<bool>(other));
}

Error check_bitwise_type(const char* op, ScalarType common, const Tensor& out) {
  if (!is_integral(common, /*include_bool=*/true)) {
    ETR_FAIL(Error::InvalidType, "%s: only integer and bool inputs are supported, got %s", op,
             to_string(common));
  }
  return check_can_cast(op, common, out);
}

template <BitOp B>
void bitwise_tensor(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(op, self, other, out, &common))) return;
  if (!kernel_ok(ctx, check_bitwise_type(op, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, BitFn<B>(), read_as<CT>(self), read_as<CT>(other));
  });
}

template <BitOp B>
void bitwise_scalar(KernelContext& ctx, const char* op, const Tensor& self, const Scalar& other,
                    Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(op, self, other, out, &common))) return;
  if (!kernel_ok(ctx, check_bitwise_type(op, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT y = scalar_to<CT>(other);
    apply_elementwise(out, [y](CT x) { return BitFn<B>()(x, y); }, read_as<CT>(self));
  });
}

Error check_mask(const char* op, const char* what, const Tensor& t, bool allow_byte) {
  if (t.dtype() != ScalarType::Bool && !(allow_byte && t.dtype() == ScalarType::Byte)) {
    ETR_FAIL(Error::InvalidType, "%s: %s must be a Bool tensor, got %s", op, what,
             to_string(t.dtype()));
  }
  return Error::Ok;
}

}  // namespace

void logical_and_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  logical<BitOp::kAnd>(ctx, "aten::logical_and.out", self, other, out);
}
void logical_or_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  logical<BitOp::kOr>(ctx, "aten::logical_or.out", self, other, out);
}
void logical_xor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  logical<BitOp::kXor>(ctx, "aten::logical_xor.out", self, other, out);
}

void bitwise_and_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out) {
  bitwise_tensor<BitOp::kAnd>(ctx, "aten::bitwise_and.Tensor_out", self, other, out);
}
void bitwise_or_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out) {
  bitwise_tensor<BitOp::kOr>(ctx, "aten::bitwise_or.Tensor_out", self, other, out);
}
void bitwise_xor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out) {
  bitwise_tensor<BitOp::kXor>(ctx, "aten::bitwise_xor.Tensor_out", self, other, out);
}

void bitwise_and_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  bitwise_scalar<BitOp::kAnd>(ctx, "aten::bitwise_and.Scalar_out", self, other, out);
}
void bitwise_or_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  bitwise_scalar<BitOp::kOr>(ctx, "aten::bitwise_or.Scalar_out", self, other, out);
}
void bitwise_xor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  bitwise_scalar<BitOp::kXor>(ctx, "aten::bitwise_xor.Scalar_out", self, other, out);
}

void where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                    const Tensor& other, Tensor& out) {
  constexpr const char* kOp = "aten::where.self_out";
  if (!kernel_ok(ctx, check_mask(kOp, "condition", condition, /*allow_byte=*/true))) return;
  if (!kernel_ok(ctx, check_dtype(kOp, "self", self))) return;
  if (!kernel_ok(ctx, check_dtype(kOp, "other", other))) return;
  if (!kernel_ok(ctx, check_dtype(kOp, "out", out))) return;
  const Tensor* ins[] = {&condition, &self, &other};
  if (!kernel_ok(ctx, resize_to_broadcast(kOp, out, ins))) return;
  const ScalarType common = result_type(self, other);
  if (!kernel_ok(ctx, check_can_cast(kOp, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, [](bool c, CT x, CT y) { return c ? x : y; },
                      read_as<bool>(condition), read_as<CT>(self), read_as<CT>(other));
  });
}

void masked_fill_scalar_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                            Scalar value, Tensor& out) {
  constexpr const char* kOp = "aten::masked_fill.Scalar_out";
  if (!kernel_ok(ctx, check_mask(kOp, "mask", mask, /*allow_byte=*/false))) return;
  if (!kernel_ok(ctx, check_dtype(kOp, "self", self))) return;
  if (!kernel_ok(ctx, check_dtype(kOp, "out", out))) return;
  const Tensor* ins[] = {&self, &mask};
  if (!kernel_ok(ctx, resize_to_broadcast(kOp, out, ins))) return;
  if (!kernel_ok(ctx, check_can_cast(kOp, self.dtype(), out))) return;
  dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT v = scalar_to<CT>(value);
    apply_elementwise(out, [v](CT x, bool m) { return m ? v : x; }, read_as<CT>(self),
                      read_as<bool>(mask));
  });
}

}  // namespace etr
