// Comparisons eq, ne, lt, le, gt, ge against a Tensor or a Scalar. Operands
// are compared in their promoted dtype; the result is written in out's dtype
// (normally Bool, but any real or bool dtype is accepted, as in PyTorch).
#include "kernels/portable/comparison.h"
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
void compare_tensor(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  binary_elementwise(ctx, self, other, out, result_type(self, other), CmpFn<C>());
}

template <Cmp C>
void compare_scalar(KernelContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  binary_scalar_elementwise(ctx, self, other, out, result_type(self, other), CmpFn<C>());
}

}  // namespace

void eq_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kEq>(ctx, self, other, out);
}
void ne_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kNe>(ctx, self, other, out);
}
void lt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kLt>(ctx, self, other, out);
}
void le_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kLe>(ctx, self, other, out);
}
void gt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kGt>(ctx, self, other, out);
}
void ge_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  compare_tensor<Cmp::kGe>(ctx, self, other, out);
}

void eq_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kEq>(ctx, self, other, out);
}
void ne_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kNe>(ctx, self, other, out);
}
void lt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kLt>(ctx, self, other, out);
}
void le_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kLe>(ctx, self, other, out);
}
void gt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kGt>(ctx, self, other, out);
}
void ge_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out) {
  compare_scalar<Cmp::kGe>(ctx, self, other, out);
}

}  // namespace etr
