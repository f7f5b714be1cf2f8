// Optimized normalization and reduction kernels for default-layout Float
// tensors: _softmax/_log_softmax over the last dim, native_layer_norm,
// _native_batch_norm_legit_no_training (NCHW and [N, C]) and mean.out over
// trailing dims (the H, W of a global average pool). Rows are vectorized by
// vec_math.h and spread over the thread pool. Prepare declines
// (NotSupported) everything else; the portable kernels run it.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_softmax.cpp
// aten::_softmax.out / _log_softmax.out(Tensor self, int dim, bool half_to_float, *,
//   Tensor(a!) out)
void opt_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                     Tensor& out);
void opt_log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                         Tensor& out);
Error opt_softmax_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          bool half_to_float, Tensor& out);
// The fused safe softmax of fusion_rules.cpp (softmax -> eq(x, -inf) ->
// logical_not -> any -> logical_not -> full_like(0) -> where): the softmax of
// the last dim with rows that are -inf throughout written as zeros.
// etr::safe_softmax.fused(Tensor self, int dim, bool half_to_float, int any_dim,
//   Tensor(b!) scratch, *, Tensor(a!) out); scratch (the softmax's own output)
//   is used when out partly overlaps self.
void opt_safe_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                          int64_t any_dim, Tensor& scratch, Tensor& out);
Error opt_safe_softmax_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                               bool half_to_float, int64_t any_dim, Tensor& scratch, Tensor& out);
// The guard alone (fusion_rules.cpp: eq(x, -inf) -> logical_not -> any ->
// logical_not, full_like(s, 0) -> where) around a softmax s of scores x
// computed elsewhere (a delegate): s with the rows of x that are -inf
// throughout zeroed.
// etr::softmax_guard.fused(Tensor x, Tensor s, int any_dim, *, Tensor(a!) out)
void opt_softmax_guard_out(KernelContext& ctx, const Tensor& x, const Tensor& s, int64_t any_dim,
                           Tensor& out);
Error opt_softmax_guard_prepare(KernelPrepareContext& ctx, const Tensor& x, const Tensor& s,
                                int64_t any_dim, Tensor& out);

// ---- op_layer_norm.cpp
// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//   Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
void opt_native_layer_norm_out(KernelContext& ctx, const Tensor& input,
                               IntArrayRef normalized_shape, const Tensor* weight,
                               const Tensor* bias, double eps, Tensor& out, Tensor& mean_out,
                               Tensor& rstd_out);
Error opt_native_layer_norm_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                    IntArrayRef normalized_shape, const Tensor* weight,
                                    const Tensor* bias, double eps, Tensor& out, Tensor& mean_out,
                                    Tensor& rstd_out);

// ---- op_batch_norm.cpp
// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor running_mean, Tensor running_var, float momentum, float eps, *,
//   Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
void opt_batch_norm_no_training_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                                    const Tensor* bias, const Tensor& running_mean,
                                    const Tensor& running_var, double momentum, double eps,
                                    Tensor& out0, Tensor& out1, Tensor& out2);
Error opt_batch_norm_no_training_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                         const Tensor* weight, const Tensor* bias,
                                         const Tensor& running_mean, const Tensor& running_var,
                                         double momentum, double eps, Tensor& out0, Tensor& out1,
                                         Tensor& out2);
// etr::batch_norm_relu.fused (kernels/optimized/fusion_rules.cpp): the batch
// norm's seven inputs, then the relu's out; one pass, the same values as the
// two kernels.
void opt_batch_norm_relu_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                             const Tensor* bias, const Tensor& running_mean,
                             const Tensor& running_var, double momentum, double eps, Tensor& out);
Error opt_batch_norm_relu_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                  const Tensor* weight, const Tensor* bias,
                                  const Tensor& running_mean, const Tensor& running_var,
                                  double momentum, double eps, Tensor& out);
// etr::cat_batch_norm_relu.fused: cat(tensors, 1) -> batch norm -> relu, the
// concatenation read only by the batch norm (a DenseNet's dense layer):
// each input's planes go through the batch norm and the clamp straight into
// out. Arguments: the cat's tensors and dim, the batch norm's six
// parameters, a scratch (the cat's output, apart from the inputs; used when
// out lies over an input), out. Declined unless the inputs are Float, of
// one rank, joined along dim 1, with planes of whole 64-byte lines.
void opt_cat_batch_norm_relu_out(KernelContext& ctx, TensorList tensors, int64_t dim,
                                 const Tensor* weight, const Tensor* bias,
                                 const Tensor& running_mean, const Tensor& running_var,
                                 double momentum, double eps, Tensor& scratch, Tensor& out);
Error opt_cat_batch_norm_relu_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim,
                                      const Tensor* weight, const Tensor* bias,
                                      const Tensor& running_mean, const Tensor& running_var,
                                      double momentum, double eps, Tensor& scratch, Tensor& out);

// ---- op_mean.cpp
// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//   Tensor(a!) out)
void opt_mean_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool keepdim, std::optional<ScalarType> dtype, Tensor& out);
Error opt_mean_prepare(KernelPrepareContext& ctx, const Tensor& self,
                       std::optional<IntArrayRef> dim, bool keepdim,
                       std::optional<ScalarType> dtype, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptNormalizationKernels[] = {
    make_kernel<&opt_softmax_out, &opt_softmax_prepare>("aten::_softmax.out",
                                                        DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_log_softmax_out, &opt_softmax_prepare>("aten::_log_softmax.out",
                                                            DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_safe_softmax_out, &opt_safe_softmax_prepare>("etr::safe_softmax.fused",
                                                                  DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_softmax_guard_out, &opt_softmax_guard_prepare>(
        "etr::softmax_guard.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_native_layer_norm_out, &opt_native_layer_norm_prepare>(
        "aten::native_layer_norm.out", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_batch_norm_no_training_out, &opt_batch_norm_no_training_prepare>(
        "aten::_native_batch_norm_legit_no_training.out", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_batch_norm_relu_out, &opt_batch_norm_relu_prepare>(
        "etr::batch_norm_relu.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_cat_batch_norm_relu_out, &opt_cat_batch_norm_relu_prepare>(
        "etr::cat_batch_norm_relu.fused", DtypeSet::of(ScalarType::Float)),
    make_kernel<&opt_mean_out, &opt_mean_prepare>("aten::mean.out",
                                                  DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
