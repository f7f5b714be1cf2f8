// Sum-like reductions: sum, mean, prod and var. Elements are converted to
// out's dtype first (as PyTorch does when out is given) and accumulated in
// double for floating outs and in wrapping int64 for integer outs.
#include <cmath>
#include <type_traits>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

template <typename T>
using AccType = std::conditional_t<std::is_floating_point<T>::value, double, int64_t>;

enum class Accumulate { kSum, kProd, kMean };

Error check_reduce_dtypes(const char* op, const Tensor& self, std::optional<ScalarType> dtype,
                          const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "self", self));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out));
  if (dtype.has_value() && *dtype != out.dtype()) {
    ETR_FAIL(Error::InvalidType, "%s: dtype %s does not match the out dtype %s", op,
             to_string(*dtype), to_string(out.dtype()));
  }
  return Error::Ok;
}

// mean needs a floating out, and (without an explicit dtype) a floating input.
Error check_mean_dtypes(const char* op, const Tensor& self, std::optional<ScalarType> dtype,
                        const Tensor& out) {
  if (!is_floating(out.dtype()) || (!dtype.has_value() && !is_floating(self.dtype()))) {
    ETR_FAIL(Error::InvalidType, "%s: needs a floating input (or dtype) and out; got %s -> %s",
             op, to_string(self.dtype()), to_string(out.dtype()));
  }
  return Error::Ok;
}

template <Accumulate A>
void accumulate(const Tensor& self, const ReducePlan& plan, Tensor& out) {
  dispatch_real_and_bool(out.dtype(), [&](auto tag) {
    using OT = typename decltype(tag)::type;
    using Acc = AccType<OT>;
    const internal::LoadFn<OT> load = internal::load_fn<OT>(self.dtype());
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
  });
}

template <Accumulate A>
void reduce(KernelContext& ctx, const char* op, const Tensor& self,
            std::optional<IntArrayRef> dims, bool keepdim, std::optional<ScalarType> dtype,
            Tensor& out) {
  if (!kernel_ok(ctx, check_reduce_dtypes(op, self, dtype, out))) return;
  if (A == Accumulate::kMean && !kernel_ok(ctx, check_mean_dtypes(op, self, dtype, out))) return;
  ReducePlan plan;
  if (!kernel_ok(ctx, make_reduce_plan(op, self, dims, keepdim, out, &plan))) return;
  accumulate<A>(self, plan, out);
}

// Two-pass variance of each group, in double.
template <typename T>
void variance(const Tensor& self, const ReducePlan& plan, double correction, Tensor& out) {
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  const double n = static_cast<double>(plan.reduced_numel);
  const double divisor = n - correction > 0.0 ? n - correction : 0.0;
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    double sum = 0.0;
    for_each_reduced(plan, in_base, [&](int64_t i) { sum += static_cast<double>(in[i]); });
    const double mean = sum / n;
    double squares = 0.0;
    for_each_reduced(plan, in_base, [&](int64_t i) {
      const double d = static_cast<double>(in[i]) - mean;
      squares += d * d;
    });
    o[out_off] = convert<T>(squares / divisor);
  });
}

}  // namespace

void sum_intlist_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  reduce<Accumulate::kSum>(ctx, "aten::sum.IntList_out", self, dim, keepdim, dtype, out);
}

void mean_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
              bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  reduce<Accumulate::kMean>(ctx, "aten::mean.out", self, dim, keepdim, dtype, out);
}

void mean_dtype_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                    Tensor& out) {
  reduce<Accumulate::kMean>(ctx, "aten::mean.dtype_out", self, std::nullopt, false, dtype, out);
}

void prod_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
              Tensor& out) {
  reduce<Accumulate::kProd>(ctx, "aten::prod.out", self, std::nullopt, false, dtype, out);
}

void prod_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                  std::optional<ScalarType> dtype, Tensor& out) {
  reduce<Accumulate::kProd>(ctx, "aten::prod.int_out", self, IntArrayRef(&dim, 1), keepdim,
                            dtype, out);
}

void var_correction_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                        std::optional<Scalar> correction, bool keepdim, Tensor& out) {
  constexpr const char* kOp = "aten::var.correction_out";
  ETR_KERNEL_CHECK(ctx, is_floating(self.dtype()) && self.dtype() == out.dtype(),
                   Error::InvalidType,
                   "%s: needs a float or double input and an out of the same dtype; got %s -> %s",
                   kOp, to_string(self.dtype()), to_string(out.dtype()));
  ReducePlan plan;
  if (!kernel_ok(ctx, make_reduce_plan(kOp, self, dim, keepdim, out, &plan))) return;
  const double c = correction.has_value() ? correction->to_double() : 1.0;
  dispatch_floating(self.dtype(), [&](auto tag) {
    variance<typename decltype(tag)::type>(self, plan, c, out);
  });
}

}  // namespace etr
