// aten::any.all_out, any.dims_out and any.out: true when some element of the
// group is nonzero (NaN counts as nonzero); out is Bool or Byte.
#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

constexpr DtypeSet kAnyOutTypes = DtypeSet::of(ScalarType::Bool, ScalarType::Byte);

// The prepare of a reduction: out is Bool or Byte, then the dims.
Error any_reduce_prepare(const char* op, const Tensor& self, std::optional<IntArrayRef> dims,
                         bool keepdim, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), kAnyOutTypes));
  return check_reduce_args(op, self, dims, keepdim, out);
}

// The store function's dispatch is the safety net for out's dtype.
void any_reduce(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dims,
                bool keepdim, Tensor& out) {
  const char* op = ctx.op_name();
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

Error any_all_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return any_reduce_prepare(ctx.op_name(), self, std::nullopt, false, out);
}

Error any_dims_prepare(KernelPrepareContext& ctx, const Tensor& self,
                       std::optional<IntArrayRef> dim, bool keepdim, Tensor& out) {
  if (dim.has_value() && dim->empty()) {
    // Elementwise (self != 0), as in run(): out keeps self's rank.
    return check_rank(ctx.op_name(), "out", out, self.dim());
  }
  return any_reduce_prepare(ctx.op_name(), self, dim, keepdim, out);
}

Error any_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                  Tensor& out) {
  return any_reduce_prepare(ctx.op_name(), self, IntArrayRef(&dim, 1), keepdim, out);
}

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
