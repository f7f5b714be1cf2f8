// Reductions: sum, mean, prod, var, amax/amin, argmax/argmin, max/min with
// indices, any. Dims are wrapped with wrap_dim (a 0-d input accepts 0 and
// -1); out is resized to the reduced shape. Prepare steps check the dtypes,
// the explicit dtype arguments and the dims (valid, not repeated, out of the
// result's rank); run() resizes out and computes (a zero-size reduced dim,
// which depends on sizes, is refused there). Parameters follow the ATen
// schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_cumsum.cpp: running sum along dim, in out's dtype (accumulated in
// double for floating outs, wrapping int64 for integer outs); an explicit
// dtype must equal out's.
// aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
void cumsum_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                std::optional<ScalarType> dtype, Tensor& out);
Error cumsum_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                     std::optional<ScalarType> dtype, Tensor& out);

// ---- op_sum_mean_prod.cpp: elements are converted to out's dtype first (as
// PyTorch does when out is given) and accumulated in double for floating
// outs, in wrapping int64 for integer outs. An explicit dtype must equal
// out's; mean needs a floating out (and a floating input unless dtype is given).
// prod also takes Half and BFloat16 itself: into such an out every product
// is rounded to it, in PyTorch's order.
// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                       Tensor(a!) out)
void sum_intlist_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, std::optional<ScalarType> dtype, Tensor& out);
Error sum_intlist_prepare(KernelPrepareContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype, Tensor& out);
// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                Tensor(a!) out)
void mean_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
              std::optional<ScalarType> dtype, Tensor& out);
Error mean_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                   bool keepdim, std::optional<ScalarType> dtype, Tensor& out);
// aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
void mean_dtype_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                    Tensor& out);
Error mean_dtype_prepare(KernelPrepareContext& ctx, const Tensor& self,
                         std::optional<ScalarType> dtype, Tensor& out);
// aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
void prod_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> dtype, Tensor& out);
Error prod_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                   Tensor& out);
// aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
//                    Tensor(a!) out)
void prod_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                  std::optional<ScalarType> dtype, Tensor& out);
Error prod_int_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                       std::optional<ScalarType> dtype, Tensor& out);

// ---- op_var.cpp: variance in double as PyTorch computes it on CPU (Welford's
// updates for var_mean and for var with several outputs, two passes for a
// var with one); float or double, outs of self's dtype.
// aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//                          bool keepdim=False, Tensor(a!) out)
void var_correction_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                        std::optional<Scalar> correction, bool keepdim, Tensor& out);
Error var_correction_prepare(KernelPrepareContext& ctx, const Tensor& self,
                             std::optional<IntArrayRef> dim, std::optional<Scalar> correction,
                             bool keepdim, Tensor& out);

// aten::var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *,
//               Tensor(a!) out): correction 1 when unbiased, else 0.
void var_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
             bool keepdim, Tensor& out);
Error var_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool unbiased, bool keepdim, Tensor& out);
// aten::var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//   bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1): out0 the variance, out1 the mean.
void var_mean_correction_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                             std::optional<Scalar> correction, bool keepdim, Tensor& out0,
                             Tensor& out1);
Error var_mean_correction_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  std::optional<IntArrayRef> dim, std::optional<Scalar> correction,
                                  bool keepdim, Tensor& out0, Tensor& out1);

// ---- op_min_max.cpp: NaN wins (the first NaN for the index variants); ties
// go to the first occurrence; values have self's dtype, indices are Long.
// aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
void amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);
// aten::amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
void amin_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);
// The prepare of amax and amin: out has self's dtype.
Error amax_amin_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dim,
                        bool keepdim, Tensor& out);
// aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
void argmax_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out);
// aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
void argmin_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out);
// The prepare of argmax and argmin: out is Long.
Error argmax_argmin_prepare(KernelPrepareContext& ctx, const Tensor& self,
                            std::optional<int64_t> dim, bool keepdim, Tensor& out);
// aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
//                   Tensor(b!) max_values)
void max_dim_max(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                 Tensor& max_indices);
// aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min,
//                   Tensor(b!) min_indices)
void min_dim_min(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                 Tensor& min_indices);
// The prepare of max.dim_max and min.dim_min: values of self's dtype, Long
// indices of the same rank.
Error max_min_dim_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                          Tensor& values, Tensor& indices);

// aten::max.unary_out(Tensor self, *, Tensor(a!) out)
void max_unary_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::min.unary_out(Tensor self, *, Tensor(a!) out)
void min_unary_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// The prepare of max.unary_out and min.unary_out: a 0-d out that self's
// dtype can be cast to (an empty self is refused at run).
Error max_min_unary_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// ---- op_any.cpp: out is Bool or Byte.
// aten::any.all_out(Tensor self, *, Tensor(a!) out)
void any_all_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error any_all_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
// aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
void any_dims_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool keepdim, Tensor& out);
Error any_dims_prepare(KernelPrepareContext& ctx, const Tensor& self,
                       std::optional<IntArrayRef> dim, bool keepdim, Tensor& out);
// aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
void any_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& out);
Error any_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                  Tensor& out);

// ---- op_topk.cpp: real dtypes, indices Long, always sorted.
// aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//   Tensor(a!) values, Tensor(b!) indices)
void topk_values(KernelContext& ctx, const Tensor& self, int64_t k, int64_t dim, bool largest,
                 bool sorted, Tensor& values, Tensor& indices);
Error topk_values_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t k, int64_t dim,
                          bool largest, bool sorted, Tensor& values, Tensor& indices);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kReductionKernels[] = {
    make_kernel<&sum_intlist_out, &sum_intlist_prepare>("aten::sum.IntList_out", kRealAndBoolTypes),
    make_kernel<&mean_out, &mean_prepare>("aten::mean.out", kRealAndBoolTypes),
    make_kernel<&mean_dtype_out, &mean_dtype_prepare>("aten::mean.dtype_out", kRealAndBoolTypes),
    make_kernel<&prod_out, &prod_prepare>(
        "aten::prod.out", kRealAndBoolTypes | DtypeSet::of(ScalarType::Half, ScalarType::BFloat16)),
    make_kernel<&prod_int_out, &prod_int_prepare>(
        "aten::prod.int_out",
        kRealAndBoolTypes | DtypeSet::of(ScalarType::Half, ScalarType::BFloat16)),
    make_kernel<&var_correction_out, &var_correction_prepare>("aten::var.correction_out",
                                                              kFloatingTypes),
    make_kernel<&var_out, &var_prepare>("aten::var.out", kFloatingTypes),
    make_kernel<&var_mean_correction_out, &var_mean_correction_prepare>(
        "aten::var_mean.correction_out", kFloatingTypes),
    make_kernel<&amax_out, &amax_amin_prepare>("aten::amax.out", kRealAndBoolTypes),
    make_kernel<&amin_out, &amax_amin_prepare>("aten::amin.out", kRealAndBoolTypes),
    make_kernel<&argmax_out, &argmax_argmin_prepare>("aten::argmax.out", kRealTypes),
    make_kernel<&argmin_out, &argmax_argmin_prepare>("aten::argmin.out", kRealTypes),
    make_kernel<&max_dim_max, &max_min_dim_prepare>("aten::max.dim_max", kRealAndBoolTypes),
    make_kernel<&min_dim_min, &max_min_dim_prepare>("aten::min.dim_min", kRealAndBoolTypes),
    make_kernel<&max_unary_out, &max_min_unary_prepare>("aten::max.unary_out", kRealAndBoolTypes),
    make_kernel<&min_unary_out, &max_min_unary_prepare>("aten::min.unary_out", kRealAndBoolTypes),
    make_kernel<&any_all_out, &any_all_prepare>("aten::any.all_out", kRealAndBoolTypes),
    make_kernel<&cumsum_out, &cumsum_prepare>("aten::cumsum.out", kRealAndBoolTypes),
    make_kernel<&any_dims_out, &any_dims_prepare>("aten::any.dims_out", kRealAndBoolTypes),
    make_kernel<&any_out, &any_prepare>("aten::any.out", kRealAndBoolTypes),
    make_kernel<&topk_values, &topk_values_prepare>("aten::topk.values", kRealTypes),
};

}  // namespace etr
