// aten::sum.IntList_out, aten::mean.out / dtype_out, aten::prod.out /
// int_out. Elements are converted to out's dtype first (as PyTorch does when
// out is given) and accumulated in double for floating outs and in wrapping
// int64 for integer outs.
#include <type_traits>

#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

template <typename T>
using AccType = std::conditional_t<std::is_floating_point<T>::value, double, int64_t>;

enum class Accumulate { kSum, kProd, kMean };

// An explicit dtype must be out's; mean needs a floating out and (without
// an explicit dtype) a floating input.
Error check_reduce_dtypes(const char* op, Accumulate a, const Tensor& self,
                          std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype.has_value() && *dtype != out.dtype()) {
    ETR_FAIL(Error::InvalidType, "%s: dtype %s does not match the out dtype %s", op,
             to_string(*dtype), to_string(out.dtype()));
  }
  if (a == Accumulate::kMean &&
      (!is_floating(out.dtype()) || (!dtype.has_value() && !is_floating(self.dtype())))) {
    ETR_FAIL(Error::InvalidType, "%s: needs a floating input (or dtype) and out; got %s -> %s", op,
             to_string(self.dtype()), to_string(out.dtype()));
  }
  return Error::Ok;
}

template <Accumulate A, typename OT>
bool accumulate(const Tensor& self, const ReducePlan& plan, Tensor& out) {
  using Acc = AccType<OT>;
  const internal::LoadFn<OT> load = internal::load_fn<OT>(self.dtype());
  if (load == nullptr) return false;
  const void* in = self.const_data();
  OT* o = out.data_ptr<OT>();
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    Acc acc = A == Accumulate::kProd ? Acc(1) : Acc(0);
    for_each_reduced(plan, in_base, [&](int64_t i) {
      const Acc v = static_cast<Acc>(load(in, i));
      acc = A == Accumulate::kProd ? mul_wrap(acc, v) : add_wrap(acc, v);
    });
    if constexpr (std::is_floating_point<Acc>::value) {
      if (A == Accumulate::kMean) acc /= static_cast<double>(plan.reduced_numel);
    }
    o[out_off] = convert<OT>(acc);
  });
  return true;
}

// The prepare of every kernel here: dtypes, then dims.
Error reduce_prepare(const char* op, Accumulate a, const Tensor& self,
                     std::optional<IntArrayRef> dims, bool keepdim, std::optional<ScalarType> dtype,
                     const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_reduce_dtypes(op, a, self, dtype, out));
  return check_reduce_args(op, self, dims, keepdim, out);
}

// Accumulates in out's dtype (the dispatch's default is the safety net).
template <Accumulate A>
void reduce(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim,
            Tensor& out) {
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(ctx.op_name(), self, dims, keepdim, out, &plan));
  bool done = false;
  const bool known = dispatch_real_and_bool(out.dtype(), [&](auto tag) {
    done = accumulate<A, typename decltype(tag)::type>(self, plan, out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), known && done, out.dtype()));
}

}  // namespace

Error sum_intlist_prepare(KernelPrepareContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype, Tensor& out) {
  return reduce_prepare(ctx.op_name(), Accumulate::kSum, self, dim, keepdim, dtype, out);
}

Error mean_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                   bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return reduce_prepare(ctx.op_name(), Accumulate::kMean, self, dim, keepdim, dtype, out);
}

Error mean_dtype_prepare(KernelPrepareContext& ctx, const Tensor& self,
                         std::optional<ScalarType> dtype, Tensor& out) {
  return reduce_prepare(ctx.op_name(), Accumulate::kMean, self, std::nullopt, false, dtype, out);
}

Error prod_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                   Tensor& out) {
  return reduce_prepare(ctx.op_name(), Accumulate::kProd, self, std::nullopt, false, dtype, out);
}

Error prod_int_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                       std::optional<ScalarType> dtype, Tensor& out) {
  return reduce_prepare(ctx.op_name(), Accumulate::kProd, self, IntArrayRef(&dim, 1), keepdim,
                        dtype, out);
}

void sum_intlist_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, std::optional<ScalarType> /*dtype*/, Tensor& out) {
  reduce<Accumulate::kSum>(ctx, self, dim, keepdim, out);
}

void mean_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
              std::optional<ScalarType> /*dtype*/, Tensor& out) {
  reduce<Accumulate::kMean>(ctx, self, dim, keepdim, out);
}

void mean_dtype_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> /*dtype*/,
                    Tensor& out) {
  reduce<Accumulate::kMean>(ctx, self, std::nullopt, false, out);
}

void prod_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> /*dtype*/,
              Tensor& out) {
  reduce<Accumulate::kProd>(ctx, self, std::nullopt, false, out);
}

void prod_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                  std::optional<ScalarType> /*dtype*/, Tensor& out) {
  reduce<Accumulate::kProd>(ctx, self, IntArrayRef(&dim, 1), keepdim, out);
}

}  // namespace etr
