// aten::logical_and / or / xor / not: every operand is read as bool
// ("!= 0"); the result is written in out's dtype (normally Bool).
#include "kernels/portable/logical.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

template <typename Fn>
void logical(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out, Fn fn) {
  const Tensor* ins[] = {&self, &other};
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
  const bool applied = apply_elementwise(out, fn, read_as<bool>(self), read_as<bool>(other));
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), applied, out.dtype()));
}

}  // namespace

void logical_and_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  logical(ctx, self, other, out, [](bool a, bool b) { return a && b; });
}

void logical_or_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  logical(ctx, self, other, out, [](bool a, bool b) { return a || b; });
}

void logical_xor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  logical(ctx, self, other, out, [](bool a, bool b) { return a != b; });
}

void logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_predicate(ctx, self, out, [](auto x) { return x == 0; });
}

}  // namespace etr
