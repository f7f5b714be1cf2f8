// aten::sum.IntList_out, aten::mean.out / dtype_out, aten::prod.out /
// int_out. Elements are converted to out's dtype first (as PyTorch does when
// out is given) and accumulated in double for floating outs and in wrapping
// int64 for integer outs. prod into a Half or BFloat16 out rounds every
// product to that dtype, in PyTorch's order (see half_product below).
#include <cstdint>
#include <type_traits>

#include "kernels/portable/reduction.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/reduce.h"
#include "runtime/core/half.h"

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

// Half and BFloat16 elements read as OT (through their exact float value).
template <typename OT, typename H>
OT load_16bit(const void* base, int64_t i) {
  return convert<OT>(static_cast<float>(static_cast<const H*>(base)[i]));
}

// Reads elements of dtype t as OT: the real and bool dtypes, Half, BFloat16.
template <typename OT>
internal::LoadFn<OT> element_loader(ScalarType t) {
  if (t == ScalarType::Half) return &load_16bit<OT, Half>;
  if (t == ScalarType::BFloat16) return &load_16bit<OT, BFloat16>;
  return internal::load_fn<OT>(t);
}

template <Accumulate A, typename OT>
bool accumulate(const Tensor& self, const ReducePlan& plan, Tensor& out) {
  using Acc = AccType<OT>;
  const internal::LoadFn<OT> load = element_loader<OT>(self.dtype());
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

// ---- prod into Half / BFloat16 -----------------------------------------------
// PyTorch multiplies in the out dtype R on CPU: each product is taken in
// float and rounded to R. Its single-thread order is kept too. A group whose
// elements lie in one contiguous run of memory (every full reduction, and a
// reduction over the dim of stride 1) is ATen's vectorized inner reduction:
// with n >= 64 elements, 64 running products (4 vectors of 16 lanes) take
// the elements block by block, the vectors are then multiplied lane-wise as
// (v0 * v1) * (v2 * v3) and the 16 lanes in order, and the n % 64 trailing
// elements follow one at a time. Any other group multiplies in order.
// 16 lanes is Vectorized<Half/BFloat16>::size() in PyTorch's default and
// AVX2 builds; on AVX-512 machines PyTorch uses 32 lanes and, like inputs of
// 32768+ elements that it splits over threads, may differ in the last bits.
constexpr int64_t kHalfLanes = 16;
constexpr int64_t kHalfBlock = 4 * kHalfLanes;

template <typename R>
float round_to(float v) {
  return static_cast<float>(R(v));
}

// The product of get(0) .. get(n - 1) (values of R), in the blocked order.
template <typename R, typename Get>
float blocked_product(int64_t n, const Get& get) {
  const int64_t blocks = n / kHalfBlock;
  float result = 1.0f;
  if (blocks > 0) {
    float acc[kHalfBlock];
    for (int64_t k = 0; k < kHalfBlock; ++k) acc[k] = get(k);
    for (int64_t b = 1; b < blocks; ++b) {
      for (int64_t k = 0; k < kHalfBlock; ++k) {
        acc[k] = round_to<R>(acc[k] * get(b * kHalfBlock + k));
      }
    }
    constexpr int64_t L = kHalfLanes;
    float lanes[L];
    for (int64_t l = 0; l < L; ++l) {
      const float low = round_to<R>(acc[l] * acc[L + l]);
      const float high = round_to<R>(acc[2 * L + l] * acc[3 * L + l]);
      lanes[l] = round_to<R>(low * high);
    }
    result = lanes[0];
    for (int64_t l = 1; l < L; ++l) result = round_to<R>(result * lanes[l]);
  }
  for (int64_t k = blocks * kHalfBlock; k < n; ++k) result = round_to<R>(result * get(k));
  return result;
}

// Whether the reduced dims of size > 1, by increasing stride, tile one
// contiguous run (stride 1, then each stride the run so far): the group
// starting at in_base is then elements in_base .. in_base + reduced_numel - 1.
bool reduced_run_is_contiguous(const ReducePlan& plan) {
  bool used[kTensorMaxDim] = {};
  int64_t expect = 1;
  for (size_t step = 0; step < plan.num_reduced; ++step) {
    size_t pick = plan.num_reduced;
    for (size_t d = 0; d < plan.num_reduced; ++d) {
      if (used[d] || plan.reduced_sizes[d] <= 1) continue;
      if (pick == plan.num_reduced || plan.reduced_strides[0][d] < plan.reduced_strides[0][pick]) {
        pick = d;
      }
    }
    if (pick == plan.num_reduced) break;
    if (plan.reduced_strides[0][pick] != expect) return false;
    used[pick] = true;
    expect *= plan.reduced_sizes[pick];
  }
  return true;
}

template <typename R>
bool half_product(const Tensor& self, const ReducePlan& plan, Tensor& out) {
  const internal::LoadFn<float> load = element_loader<float>(self.dtype());
  if (load == nullptr) return false;
  const void* in = self.const_data();
  R* o = out.data_ptr<R>();
  const bool run = reduced_run_is_contiguous(plan);
  for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
    // Elements are converted to R first, as PyTorch converts to out's dtype.
    float p = 1.0f;
    if (run) {
      p = blocked_product<R>(plan.reduced_numel,
                             [&](int64_t k) { return round_to<R>(load(in, in_base + k)); });
    } else {
      for_each_reduced(plan, in_base,
                       [&](int64_t i) { p = round_to<R>(p * round_to<R>(load(in, i))); });
    }
    o[out_off] = R(p);
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

// Accumulates in out's dtype (the dispatch's default is the safety net);
// only prod declares Half and BFloat16 (the others reach them widened to
// float by the portable_half library).
template <Accumulate A>
void reduce(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim,
            Tensor& out) {
  ReducePlan plan;
  ETR_KERNEL_TRY(ctx, make_reduce_plan(ctx.op_name(), self, dims, keepdim, out, &plan));
  bool done = false;
  bool known = true;
  if (out.dtype() == ScalarType::Half) {
    done = A == Accumulate::kProd && half_product<Half>(self, plan, out);
  } else if (out.dtype() == ScalarType::BFloat16) {
    done = A == Accumulate::kProd && half_product<BFloat16>(self, plan, out);
  } else {
    known = dispatch_real_and_bool(out.dtype(), [&](auto tag) {
      done = accumulate<A, typename decltype(tag)::type>(self, plan, out);
    });
  }
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
