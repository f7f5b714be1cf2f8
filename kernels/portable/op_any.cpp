// aten::any.all_out, any.dims_out and any.out: true when some element of the
// group is nonzero (NaN counts as nonzero); out is Bool or Byte.
#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

void any_reduce(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dims,
                bool keepdim, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_dtype_in(op, "out", out.dtype(),
                                     DtypeSet::of(ScalarType::Bool, ScalarType::Byte)));
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(op, self, dims, keepdim, out, &plan));
  const internal::LoadFn<bool> load = internal::load_fn<bool>(self.dtype());
  const internal::StoreFn<bool> store = internal::store_fn<bool>(out.dtype());
  ETR_KERNEL_TRY(ctx, check_dispatched(op, load != nullptr, self.dtype()));
  ETR_KERNEL_TRY(ctx, check_dispatched(op, store != nullptr, out.dtype()));
  const void* in = self.const_data();
  void* o = out.mutable_data();
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    bool any = false;
    for_each_reduced(plan, in_base, [&](int64_t i) { any = any || load(in, i); });
    store(o, out_off, any);
  });
}

}  // namespace

void any_all_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  any_reduce(ctx, self, std::nullopt, false, out);
}

void any_dims_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool keepdim, Tensor& out) {
  if (dim.has_value() && dim->empty()) {
    // PyTorch: an empty dim list reduces nothing; out = (self != 0).
    unary_predicate(ctx, self, out, [](auto x) { return x != 0; });
    return;
  }
  any_reduce(ctx, self, dim, keepdim, out);
}

void any_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  any_reduce(ctx, self, IntArrayRef(&dim, 1), keepdim, out);
}

}  // namespace etr
