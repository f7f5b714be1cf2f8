// Normalization: softmax / log_softmax along one dim, layer norm over the
// trailing dims, batch norm over dim 1. Float and double only, every tensor
// of the input's dtype. Prepare steps check dtypes, ranks, dim orders and
// the constant arguments (dim, half_to_float, training); run() checks what
// depends on sizes, resizes the outputs and computes (statistics in double).
// Parameters follow the ATen schema in order, outs last.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_softmax.cpp: max-shifted exponentials, normalized.
// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
void softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                 Tensor& out);
// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
void log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                     Tensor& out);
// The prepare of both.
Error softmax_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                      bool half_to_float, Tensor& out);

// ---- op_layer_norm.cpp: also returns the per-row mean and rstd with shape
// [*leading dims, 1, ..., 1]; tensors in the default dim order.
// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//     Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
void native_layer_norm_out(KernelContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
                           const Tensor* weight, const Tensor* bias, double eps, Tensor& out,
                           Tensor& mean_out, Tensor& rstd_out);
Error native_layer_norm_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                IntArrayRef normalized_shape, const Tensor* weight,
                                const Tensor* bias, double eps, Tensor& out, Tensor& mean_out,
                                Tensor& rstd_out);

// ---- op_batch_norm.cpp: per channel out = x * scale + shift with
// scale = weight / sqrt(var + eps), shift = bias - mean * scale; input and
// out of rank 2..16 in any dim order (channels-last included), per-channel
// tensors 1-D float or double.
// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0,
//   Tensor(b!) out1, Tensor(c!) out2)
void native_batch_norm_legit_no_training_out(KernelContext& ctx, const Tensor& input,
                                             const Tensor* weight, const Tensor* bias,
                                             const Tensor& running_mean, const Tensor& running_var,
                                             double momentum, double eps, Tensor& out0,
                                             Tensor& out1, Tensor& out2);
Error native_batch_norm_legit_no_training_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                                  const Tensor* weight, const Tensor* bias,
                                                  const Tensor& running_mean,
                                                  const Tensor& running_var, double momentum,
                                                  double eps, Tensor& out0, Tensor& out1,
                                                  Tensor& out2);
// aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps,
//   *, Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd)
void native_batch_norm_legit_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                                 const Tensor* bias, Tensor& running_mean, Tensor& running_var,
                                 bool training, double momentum, double eps, Tensor& out,
                                 Tensor& save_mean, Tensor& save_invstd);
Error native_batch_norm_legit_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                      const Tensor* weight, const Tensor* bias,
                                      Tensor& running_mean, Tensor& running_var, bool training,
                                      double momentum, double eps, Tensor& out, Tensor& save_mean,
                                      Tensor& save_invstd);
// aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//   bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
//   Tensor(c!) save_invstd); training must be true.
void native_batch_norm_legit_no_stats_out(KernelContext& ctx, const Tensor& input,
                                          const Tensor* weight, const Tensor* bias, bool training,
                                          double momentum, double eps, Tensor& out,
                                          Tensor& save_mean, Tensor& save_invstd);
Error native_batch_norm_legit_no_stats_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                               const Tensor* weight, const Tensor* bias,
                                               bool training, double momentum, double eps,
                                               Tensor& out, Tensor& save_mean, Tensor& save_invstd);

// ---- op_group_norm.cpp
// aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//   SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2);
// out1/out2 (mean, rstd) are [N, group].
void native_group_norm_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                           const Tensor* bias, int64_t n, int64_t c, int64_t hxw, int64_t group,
                           double eps, Tensor& out, Tensor& mean_out, Tensor& rstd_out);
Error native_group_norm_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                const Tensor* weight, const Tensor* bias, int64_t n, int64_t c,
                                int64_t hxw, int64_t group, double eps, Tensor& out,
                                Tensor& mean_out, Tensor& rstd_out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kNormalizationKernels[] = {
    make_kernel<&softmax_out, &softmax_prepare>("aten::_softmax.out", kFloatingTypes),
    make_kernel<&log_softmax_out, &softmax_prepare>("aten::_log_softmax.out", kFloatingTypes),
    make_kernel<&native_layer_norm_out, &native_layer_norm_prepare>("aten::native_layer_norm.out",
                                                                    kFloatingTypes),
    make_kernel<&native_batch_norm_legit_no_training_out,
                &native_batch_norm_legit_no_training_prepare>(
        "aten::_native_batch_norm_legit_no_training.out", kFloatingTypes),
    make_kernel<&native_batch_norm_legit_out, &native_batch_norm_legit_prepare>(
        "aten::_native_batch_norm_legit.out", kFloatingTypes),
    make_kernel<&native_batch_norm_legit_no_stats_out, &native_batch_norm_legit_no_stats_prepare>(
        "aten::_native_batch_norm_legit.no_stats_out", kFloatingTypes),
    make_kernel<&native_group_norm_out, &native_group_norm_prepare>("aten::native_group_norm.out",
                                                                    kFloatingTypes),
};

}  // namespace etr
