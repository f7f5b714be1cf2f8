// Comparisons eq, ne, lt, le, gt, ge against a Tensor or a Scalar. Operands
// are compared in their promoted dtype; the result is written in out's dtype
// (normally Bool, but any supported dtype is accepted, as in PyTorch).
#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

template <Cmp C>
struct CmpFn {
  template <typename T>
  bool operator()(T a, T b) const {
    switch (C) {
      case Cmp::kEq: return a == b;
      case Cmp::kNe: return a != b;
      case Cmp::kLt: return a < b;
      case Cmp::kLe: return a <= b;
      case Cmp::kGt: return a > b;
      case Cmp::kGe: return a >= b;
    }
    return false;
  }
};

template <Cmp C>
void compare_tensor(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& other,
                    Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(op, self, other, out, &common))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, CmpFn<C>(), read_as<CT>(self), read_as<CT>(other));
  });
}

template <Cmp C>
void compare_scalar(KernelContext& ctx, const char* op, const Tensor& self, const Scalar& other,
                    Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(op, self, other, out, &common))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const CT y = scalar_to<CT>(other);
    apply_elementwise(out, [y](CT x) { return CmpFn<C>()(x, y); }, read_as<CT>(self));
  });
}

}  // namespace

void eq_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kEq>(ctx, "aten::eq.Tensor_out", self, other, out);
}
void ne_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kNe>(ctx, "aten::ne.Tensor_out", self, other, out);
}
void lt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kLt>(ctx, "aten::lt.Tensor_out", self, other, out);
}
void le_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kLe>(ctx, "aten::le.Tensor_out", self, other, out);
}
void gt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kGt>(ctx, "aten::gt.Tensor_out", self, other, out);
}
void ge_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kGe>(ctx, "aten::ge.Tensor_out", self, other, out);
}

void eq_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kEq>(ctx, "aten::eq.Scalar_out", self, other, out);
}
void ne_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kNe>(ctx, "aten::ne.Scalar_out", self, other, out);
}
void lt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kLt>(ctx, "aten::lt.Scalar_out", self, other, out);
}
void le_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kLe>(ctx, "aten::le.Scalar_out", self, other, out);
}
void gt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kGt>(ctx, "aten::gt.Scalar_out", self, other, out);
}
void ge_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kGe>(ctx, "aten::ge.Scalar_out", self, other, out);
}

}  // namespace etr
