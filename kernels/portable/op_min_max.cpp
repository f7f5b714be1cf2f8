// Min/max reductions: aten::amax, amin, argmax, argmin, max.dim_max,
// min.dim_min, max.unary_out and min.unary_out. NaN wins (the first NaN for
// the index variants); ties go to the first occurrence.
#include <cmath>
#include <type_traits>

#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

// True when `cand` replaces `best` in a running max (kMax) or min.
template <bool kMax, typename T>
bool better(T cand, T best) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(best)) return false;
    if (std::isnan(cand)) return true;
  }
  return kMax ? best < cand : cand < best;
}

// Walks each group, writing the best value (when `values` is set) and its
// flattened index within the group (when `indices` is set).
template <bool kMax, typename T>
void select_best(const Tensor& self, const ReducePlan& plan, Tensor* values, Tensor* indices) {
  const T* in = self.const_data_ptr<T>();
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    T best = T();
    int64_t best_index = -1;
    int64_t k = 0;
    for_each_reduced(plan, in_base, [&](int64_t i) {
      const T v = read_elem(in, i);
      if (best_index < 0 || better<kMax>(v, best)) {
        best = v;
        best_index = k;
      }
      ++k;
    });
    if (values != nullptr) values->data_ptr<T>()[out_off] = best;
    if (indices != nullptr) indices->data_ptr<int64_t>()[out_off] = best_index;
  });
}

// Dispatches select_best over self's dtype (bool included whenever values
// are written: max/min over a dim take Bool in PyTorch, argmax/argmin not).
template <bool kMax>
Error run_select_best(const char* op, const Tensor& self, const ReducePlan& plan, Tensor* values,
                      Tensor* indices) {
  auto fn = [&](auto tag) {
    select_best<kMax, typename decltype(tag)::type>(self, plan, values, indices);
  };
  const bool known = values != nullptr ? dispatch_real_and_bool(self.dtype(), fn)
                                       : dispatch_real(self.dtype(), fn);
  return check_dispatched(op, known, self.dtype());
}

Error check_nonempty(const char* op, const ReducePlan& plan, const Tensor& out) {
  if (plan.reduced_numel == 0 && out.numel() != 0) {
    ETR_FAIL(Error::InvalidArgument, "%s: cannot reduce over a zero-size dimension", op);
  }
  return Error::Ok;
}

// Both tensors (of equal shape) place every element at the same offset.
Error check_same_layout(const char* op, const Tensor& a, const Tensor& b) {
  for (size_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) {
      ETR_FAIL(Error::NotSupported, "%s: values and indices must share a dim order", op);
    }
  }
  return Error::Ok;
}

// The dim list of argmax/argmin: none (flatten) or the one dim.
std::optional<IntArrayRef> arg_dims(const std::optional<int64_t>& dim) {
  if (!dim.has_value()) return std::nullopt;
  return IntArrayRef(&*dim, 1);
}

template <bool kMax>
void amax_amin(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(op, self, dim, keepdim, out, &plan));
  ETR_KERNEL_TRY(ctx, check_nonempty(op, plan, out));
  ETR_KERNEL_TRY(ctx, run_select_best<kMax>(op, self, plan, &out, nullptr));
}

template <bool kMax>
void arg_best(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
              Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Long, {&out}));
  ReducePlan plan;
  // dim=None flattens: the result is 0-d, or all ones with keepdim.
  ETR_KERNEL_TRY(ctx, make_reduce_plan(op, self, arg_dims(dim), keepdim, out, &plan));
  ETR_KERNEL_TRY(ctx, check_nonempty(op, plan, out));
  ETR_KERNEL_TRY(ctx, run_select_best<kMax>(op, self, plan, nullptr, &out));
}

template <bool kMax>
void best_with_index(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                     Tensor& values, Tensor& indices) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&values}));
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Long, {&indices}));
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(op, self, IntArrayRef(&dim, 1), keepdim, values, &plan));
  ETR_KERNEL_TRY(ctx, resize_output(op, indices, values.sizes()));
  ETR_KERNEL_TRY(ctx, check_nonempty(op, plan, values));
  ETR_KERNEL_TRY(ctx, check_same_layout(op, indices, values));
  ETR_KERNEL_TRY(ctx, run_select_best<kMax>(op, self, plan, &values, &indices));
}

// max/min over every element (logical order), converted to the 0-d out's dtype.
template <bool kMax>
void best_of_all(KernelContext& ctx, const Tensor& self, Tensor& out) {
  const char* op = ctx.op_name();
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(op, self, std::nullopt, false, out, &plan));
  ETR_KERNEL_TRY(ctx, check_nonempty(op, plan, out));
  bool stored = false;
  const bool known = dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = self.const_data_ptr<T>();
    T best = T();
    bool first = true;
    for_each_group(plan, [&](int64_t, int64_t in_base) {
      for_each_reduced(plan, in_base, [&](int64_t i) {
        const T v = read_elem(in, i);
        if (first || better<kMax>(v, best)) best = v;
        first = false;
      });
    });
    stored = fill_tensor(out, best);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
  ETR_KERNEL_TRY(ctx, check_dispatched(op, stored, out.dtype()));
}

}  // namespace

// ---- Prepare: output dtypes, then the dims and the outputs' rank.

Error max_min_unary_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_can_cast(ctx.op_name(), self.dtype(), out));
  return check_rank(ctx.op_name(), "out", out, 0);
}

Error amax_amin_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dim,
                        bool keepdim, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, self.dtype()));
  return check_reduce_args(ctx.op_name(), self, dim, keepdim, out);
}

Error argmax_argmin_prepare(KernelPrepareContext& ctx, const Tensor& self,
                            std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, ScalarType::Long));
  return check_reduce_args(ctx.op_name(), self, arg_dims(dim), keepdim, out);
}

Error max_min_dim_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                          Tensor& values, Tensor& indices) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype(op, "values", values, self.dtype()));
  ETR_RETURN_IF_ERROR(check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_reduce_args(op, self, IntArrayRef(&dim, 1), keepdim, values));
  return check_rank(op, "indices", indices, values.dim());
}

// ---- Run

void amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  amax_amin<true>(ctx, self, dim, keepdim, out);
}

void amin_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  amax_amin<false>(ctx, self, dim, keepdim, out);
}

void argmax_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out) {
  arg_best<true>(ctx, self, dim, keepdim, out);
}

void argmin_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out) {
  arg_best<false>(ctx, self, dim, keepdim, out);
}

void max_dim_max(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                 Tensor& max_indices) {
  best_with_index<true>(ctx, self, dim, keepdim, max, max_indices);
}

void min_dim_min(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                 Tensor& min_indices) {
  best_with_index<false>(ctx, self, dim, keepdim, min, min_indices);
}

void max_unary_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  best_of_all<true>(ctx, self, out);
}

void min_unary_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  best_of_all<false>(ctx, self, out);
}

}  // namespace etr
