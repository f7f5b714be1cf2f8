// aten::add / sub / rsub: out = self (+|-) alpha * other, computed in the
// promoted dtype of the inputs and cast to out.
#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class AddKind { kAdd, kSub, kRsub };

// PyTorch rejects a floating alpha for integral results and a bool alpha for
// non-bool results.
Error check_alpha(const char* op, ScalarType common, const Scalar& alpha) {
  if (is_integral(common, /*include_bool=*/true) && alpha.is_floating()) {
    ETR_FAIL(Error::InvalidArgument,
             "%s: alpha must not be a floating point number for integral inputs", op);
  }
  if (alpha.is_bool() && common != ScalarType::Bool) {
    ETR_FAIL(Error::InvalidArgument, "%s: a bool alpha is only supported for bool results", op);
  }
  return Error::Ok;
}

// x (+|-) alpha * y, or y - alpha * x for rsub.
template <AddKind K, typename CT>
struct AddFn {
  CT alpha;
  CT operator()(CT x, CT y) const {
    if constexpr (K == AddKind::kAdd) {
      return add_wrap(x, mul_wrap(alpha, y));
    } else if constexpr (K == AddKind::kSub) {
      return sub_wrap(x, mul_wrap(alpha, y));
    } else {
      return sub_wrap(y, mul_wrap(alpha, x));
    }
  }
};

Error check_kind(const char* op, AddKind kind, ScalarType common) {
  if (kind != AddKind::kAdd && common == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: subtraction with bool inputs is not supported", op);
  }
  return Error::Ok;
}

template <AddKind K>
void add_tensor(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_binary(op, self, other, out, &common))) return;
  if (!kernel_ok(ctx, check_kind(op, K, common))) return;
  if (!kernel_ok(ctx, check_alpha(op, common, alpha))) return;
  if (!kernel_ok(ctx, check_can_cast(op, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, AddFn<K, CT>{scalar_to<CT>(alpha)}, read_as<CT>(self),
                      read_as<CT>(other));
  });
}

template <AddKind K>
void add_scalar(KernelContext& ctx, const char* op, const Tensor& self, const Scalar& other,
                const Scalar& alpha, Tensor& out) {
  ScalarType common;
  if (!kernel_ok(ctx, prepare_scalar(op, self, other, out, &common))) return;
  if (!kernel_ok(ctx, check_kind(op, K, common))) return;
  if (!kernel_ok(ctx, check_alpha(op, common, alpha))) return;
  if (!kernel_ok(ctx, check_can_cast(op, common, out))) return;
  dispatch_real_and_bool(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    const AddFn<K, CT> fn{scalar_to<CT>(alpha)};
    const CT y = scalar_to<CT>(other);
    apply_elementwise(out, [fn, y](CT x) { return fn(x, y); }, read_as<CT>(self));
  });
}

}  // namespace

void add_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out) {
  add_tensor<AddKind::kAdd>(ctx, "aten::add.out", self, other, alpha, out);
}

void add_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out) {
  add_scalar<AddKind::kAdd>(ctx, "aten::add.Scalar_out", self, other, alpha, out);
}

void sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out) {
  add_tensor<AddKind::kSub>(ctx, "aten::sub.out", self, other, alpha, out);
}

void sub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out) {
  add_scalar<AddKind::kSub>(ctx, "aten::sub.Scalar_out", self, other, alpha, out);
}

void rsub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                     Tensor& out) {
  add_scalar<AddKind::kRsub>(ctx, "aten::rsub.Scalar_out", self, other, alpha, out);
}

}  // namespace etr
