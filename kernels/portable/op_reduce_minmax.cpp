// Min/max-like reductions: amax, amin, argmax, argmin, max.dim_max,
// min.dim_min and any. NaN wins min/max (the first NaN for arg-reductions);
// ties go to the first occurrence.
#include <cmath>
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
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
      if (best_index < 0 || better<kMax>(in[i], best)) {
        best = in[i];
        best_index = k;
      }
      ++k;
    });
    if (values != nullptr) values->data_ptr<T>()[out_off] = best;
    if (indices != nullptr) indices->data_ptr<int64_t>()[out_off] = best_index;
  });
}

Error check_nonempty(const char* op, const ReducePlan& plan, const Tensor& out) {
  if (plan.reduced_numel == 0 && out.numel() != 0) {
    ETR_FAIL(Error::InvalidArgument, "%s: cannot reduce over a zero-size dimension", op);
  }
  return Error::Ok;
}

Error check_same_dtype(const char* op, const Tensor& self, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "self", self));
  if (out.dtype() != self.dtype()) {
    ETR_FAIL(Error::InvalidType, "%s: out dtype %s must match the input dtype %s", op,
             to_string(out.dtype()), to_string(self.dtype()));
  }
  return Error::Ok;
}

Error check_index_out(const char* op, const Tensor& self, const Tensor& indices) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "self", self));
  if (self.dtype() == ScalarType::Bool) {
    ETR_FAIL(Error::InvalidType, "%s: bool inputs are not supported", op);
  }
  if (indices.dtype() != ScalarType::Long) {
    ETR_FAIL(Error::InvalidType, "%s: indices out must be Long, got %s", op,
             to_string(indices.dtype()));
  }
  return Error::Ok;
}

// Both tensors (of equal shape) place every element at the same offset.
bool same_layout(const Tensor& a, const Tensor& b) {
  for (size_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
  }
  return true;
}

template <bool kMax>
void amax_amin(KernelContext& ctx, const char* op, const Tensor& self, IntArrayRef dim,
               bool keepdim, Tensor& out) {
  if (!kernel_ok(ctx, check_same_dtype(op, self, out))) return;
  ReducePlan plan;
  if (!kernel_ok(ctx, make_reduce_plan(op, self, dim, keepdim, out, &plan))) return;
  if (!kernel_ok(ctx, check_nonempty(op, plan, out))) return;
  dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    select_best<kMax, typename decltype(tag)::type>(self, plan, &out, nullptr);
  });
}

template <bool kMax>
void arg_best(KernelContext& ctx, const char* op, const Tensor& self, std::optional<int64_t> dim,
              bool keepdim, Tensor& out) {
  if (!kernel_ok(ctx, check_index_out(op, self, out))) return;
  ReducePlan plan;
  std::optional<IntArrayRef> dims;
  if (dim.has_value()) dims = IntArrayRef(&*dim, 1);
  // dim=None flattens: the result is 0-d, or all ones with keepdim.
  if (!kernel_ok(ctx, make_reduce_plan(op, self, dims, keepdim, out, &plan))) return;
  if (!kernel_ok(ctx, check_nonempty(op, plan, out))) return;
  dispatch_real(self.dtype(), [&](auto tag) {
    select_best<kMax, typename decltype(tag)::type>(self, plan, nullptr, &out);
  });
}

template <bool kMax>
void best_with_index(KernelContext& ctx, const char* op, const Tensor& self, int64_t dim,
                     bool keepdim, Tensor& values, Tensor& indices) {
  if (!kernel_ok(ctx, check_same_dtype(op, self, values))) return;
  if (!kernel_ok(ctx, check_index_out(op, self, indices))) return;
  ReducePlan plan;
  if (!kernel_ok(ctx, make_reduce_plan(op, self, IntArrayRef(&dim, 1), keepdim, values, &plan)))
    return;
  if (!kernel_ok(ctx, resize_like(op, indices, values))) return;
  if (!kernel_ok(ctx, check_nonempty(op, plan, values))) return;
  ETR_KERNEL_CHECK(ctx, same_layout(indices, values),
                   Error::NotSupported, "%s: values and indices must share a dim order", op);
  dispatch_real(self.dtype(), [&](auto tag) {
    select_best<kMax, typename decltype(tag)::type>(self, plan, &values, &indices);
  });
}

void any_reduce(KernelContext& ctx, const char* op, const Tensor& self,
                std::optional<IntArrayRef> dims, bool keepdim, Tensor& out) {
  if (!kernel_ok(ctx, check_dtype(op, "self", self))) return;
  ETR_KERNEL_CHECK(ctx, out.dtype() == ScalarType::Bool || out.dtype() == ScalarType::Byte,
                   Error::InvalidType, "%s: out must be Bool or Byte, got %s", op,
                   to_string(out.dtype()));
  ReducePlan plan;
  if (!kernel_ok(ctx, make_reduce_plan(op, self, dims, keepdim, out, &plan))) return;
  const internal::LoadFn<bool> load = internal::load_fn<bool>(self.dtype());
  const internal::StoreFn<bool> store = internal::store_fn<bool>(out.dtype());
  const void* in = self.const_data();
  void* o = out.mutable_data();
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    bool any = false;
    for_each_reduced(plan, in_base, [&](int64_t i) { any = any || load(in, i); });
    store(o, out_off, any);
  });
}

}  // namespace

void amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  amax_amin<true>(ctx, "aten::amax.out", self, dim, keepdim, out);
}

void amin_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  amax_amin<false>(ctx, "aten::amin.out", self, dim, keepdim, out);
}

void argmax_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out) {
  arg_best<true>(ctx, "aten::argmax.out", self, dim, keepdim, out);
}

void argmin_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out) {
  arg_best<false>(ctx, "aten::argmin.out", self, dim, keepdim, out);
}

void max_dim_max(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                 Tensor& max_indices) {
  best_with_index<true>(ctx, "aten::max.dim_max", self, dim, keepdim, max, max_indices);
}

void min_dim_min(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                 Tensor& min_indices) {
  best_with_index<false>(ctx, "aten::min.dim_min", self, dim, keepdim, min, min_indices);
}

void any_all_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  any_reduce(ctx, "aten::any.all_out", self, std::nullopt, false, out);
}

void any_dims_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool keepdim, Tensor& out) {
  constexpr const char* kOp = "aten::any.dims_out";
  if (dim.has_value() && dim->empty()) {
    // PyTorch: an empty dim list reduces nothing; out = (self != 0).
    if (!kernel_ok(ctx, prepare_unary(kOp, self, out))) return;
    apply_elementwise(out, [](bool x) { return x; }, read_as<bool>(self));
    return;
  }
  any_reduce(ctx, kOp, self, dim, keepdim, out);
}

void any_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  any_reduce(ctx, "aten::any.out", self, IntArrayRef(&dim, 1), keepdim, out);
}

}  // namespace etr
