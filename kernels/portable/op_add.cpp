// aten::add / sub / rsub: out = self (+|-) alpha * other, computed in the
// promoted dtype of the inputs and cast to out.
#include "kernels/portable/arithmetic.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

enum class AddKind { kAdd, kSub, kRsub };

// PyTorch rejects a floating alpha for integral results and a bool alpha for
// non-bool results; sub and rsub reject bool results.
Error check_add(const char* op, AddKind kind, ScalarType common, const Scalar& alpha,
                const Tensor& out) {
  if (kind != AddKind::kAdd && common == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: subtraction with bool inputs is not supported", op);
  }
  if (is_integral(common, /*include_bool=*/true) && alpha.is_floating()) {
    ETR_FAIL(Error::InvalidArgument,
             "%s: alpha must not be a floating point number for integral inputs", op);
  }
  if (alpha.is_bool() && common != ScalarType::Bool) {
    ETR_FAIL(Error::InvalidArgument, "%s: a bool alpha is only supported for bool results", op);
  }
  return check_can_cast(op, common, out);
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

template <AddKind K>
void add_tensor(KernelContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha,
                Tensor& out) {
  const Tensor* ins[] = {&self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), result_type(self, other), [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   return apply_elementwise(out, AddFn<K, CT>{scalar_to<CT>(alpha)},
                                            read_as<CT>(self), read_as<CT>(other));
                 }));
}

template <AddKind K>
void add_scalar(KernelContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), result_type(self, other), [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const AddFn<K, CT> fn{scalar_to<CT>(alpha)};
                   const CT y = scalar_to<CT>(other);
                   return apply_elementwise(
                       out, [fn, y](CT x) { return fn(x, y); }, read_as<CT>(self));
                 }));
}

}  // namespace

Error add_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                  Tensor& out) {
  return check_add(ctx.op_name(), AddKind::kAdd, result_type(self, other), alpha, out);
}

Error add_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                         Tensor& out) {
  return check_add(ctx.op_name(), AddKind::kAdd, result_type(self, other), alpha, out);
}

Error sub_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                  Tensor& out) {
  return check_add(ctx.op_name(), AddKind::kSub, result_type(self, other), alpha, out);
}

Error sub_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                         Tensor& out) {
  return check_add(ctx.op_name(), AddKind::kSub, result_type(self, other), alpha, out);
}

void add_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out) {
  add_tensor<AddKind::kAdd>(ctx, self, other, alpha, out);
}

void add_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out) {
  add_scalar<AddKind::kAdd>(ctx, self, other, alpha, out);
}

void sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out) {
  add_tensor<AddKind::kSub>(ctx, self, other, alpha, out);
}

void sub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out) {
  add_scalar<AddKind::kSub>(ctx, self, other, alpha, out);
}

void rsub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                     Tensor& out) {
  add_scalar<AddKind::kRsub>(ctx, self, other, alpha, out);
}

}  // namespace etr
