// Batch normalization over dim 1 of an [N, C, *] input:
//   aten::_native_batch_norm_legit_no_training.out (running statistics),
//   aten::_native_batch_norm_legit.out (training: batch statistics and a
//     running-statistics update; eval: like no_training),
//   aten::_native_batch_norm_legit.no_stats_out (training only).
// Per channel: out = x * scale + shift with scale = weight / sqrt(var + eps)
// and shift = bias - mean * scale; statistics are accumulated in double.
// Input/out float or double; per-channel tensors float or double.
#include <cmath>
#include <limits>

#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

struct BnGeom {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t inner = 1;  // product of the dims after the channel dim
};

bool is_float_type(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; }

// Checks an optional per-channel tensor: 1-D of `c` floats (absent is fine).
bool check_channel_tensor(KernelContext& ctx, const char* op, const char* name, const Tensor* t,
                          int64_t c) {
  if (t == nullptr) return true;
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_float_type(t->dtype()), Error::InvalidType,
                            "%s: %s has unsupported dtype %s", op, name, to_string(t->dtype()));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, t->dim() == 1 && t->size(0) == c, Error::InvalidArgument,
                            "%s: %s must have shape [%lld], got %s", op, name,
                            static_cast<long long>(c), shape_str(*t).c_str());
  return true;
}

// Validates input/weight/bias, resizes `out` like input and fills `g`.
bool prepare_bn(KernelContext& ctx, const char* op, const Tensor& input, const Tensor* weight,
                const Tensor* bias, Tensor& out, BnGeom* g) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_float_type(input.dtype()) && out.dtype() == input.dtype(),
                            Error::InvalidType,
                            "%s: input %s and out %s must be the same float type", op,
                            to_string(input.dtype()), to_string(out.dtype()));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, input.dim() >= 2, Error::InvalidArgument,
                            "%s: input must be [N, C, *], got %s", op, shape_str(input).c_str());
  g->batch = input.size(0);
  g->channels = input.size(1);
  g->inner = 1;
  for (size_t d = 2; d < input.dim(); ++d) g->inner *= input.size(d);
  if (!check_channel_tensor(ctx, op, "weight", weight, g->channels) ||
      !check_channel_tensor(ctx, op, "bias", bias, g->channels)) {
    return false;
  }
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_default_layout(input), Error::NotSupported,
                            "%s: input must have the default dim order", op);
  const Error e = resize_tensor(out, input.sizes());
  ETR_KERNEL_CHECK_OR_FALSE(ctx, e == Error::Ok, e, "%s: cannot resize out to %s", op,
                            shape_str(input).c_str());
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_default_layout(out), Error::NotSupported,
                            "%s: out must have the default dim order", op);
  return true;
}

// Element c of a float/double 1-D tensor, or `dflt` when the tensor is absent.
double channel_get(const Tensor* t, int64_t c, double dflt) {
  if (t == nullptr) return dflt;
  double v = dflt;
  dispatch_floating(t->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = static_cast<double>(t->const_data_ptr<T>()[c * t->stride(0)]);
  });
  return v;
}

void channel_set(Tensor& t, int64_t c, double v) {
  dispatch_floating(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    t.data_ptr<T>()[c * t.stride(0)] = convert_value<T>(v);
  });
}

// out[:, c, ...] = in[:, c, ...] * scale + shift.
void normalize_channel(const Tensor& input, Tensor& out, const BnGeom& g, int64_t c, double scale,
                       double shift) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = convert_value<T>(scale), b = convert_value<T>(shift);
    for (int64_t n = 0; n < g.batch; ++n) {
      const int64_t base = (n * g.channels + c) * g.inner;
      const T* x = input.const_data_ptr<T>() + base;
      T* y = out.data_ptr<T>() + base;
      for (int64_t i = 0; i < g.inner; ++i) y[i] = x[i] * a + b;
    }
  });
}

// Batch mean and biased variance of channel c (two passes, double accumulation).
void channel_stats(const Tensor& input, const BnGeom& g, int64_t c, double* mean, double* var) {
  double sum = 0, sq = 0;
  const double count = static_cast<double>(g.batch * g.inner);
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t n = 0; n < g.batch; ++n) {
      const T* x = input.const_data_ptr<T>() + (n * g.channels + c) * g.inner;
      for (int64_t i = 0; i < g.inner; ++i) sum += static_cast<double>(x[i]);
    }
    const double m = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
    for (int64_t n = 0; n < g.batch; ++n) {
      const T* x = input.const_data_ptr<T>() + (n * g.channels + c) * g.inner;
      for (int64_t i = 0; i < g.inner; ++i) {
        const double d = static_cast<double>(x[i]) - m;
        sq += d * d;
      }
    }
    *mean = m;
  });
  *var = count > 0 ? sq / count : std::numeric_limits<double>::quiet_NaN();
}

// Resizes a save_mean / save_invstd output to [n] and checks its dtype.
bool prepare_stat_out(KernelContext& ctx, const char* op, const char* name, Tensor& t, int64_t n) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_float_type(t.dtype()), Error::InvalidType,
                            "%s: %s has unsupported dtype %s", op, name, to_string(t.dtype()));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, t.dim() == 1, Error::InvalidArgument, "%s: %s must be 1-D, got %s",
                            op, name, shape_str(t).c_str());
  const int64_t size[1] = {n};
  const Error e = resize_to(t, size, 1);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, e == Error::Ok, e, "%s: cannot resize %s to [%lld]", op, name,
                            static_cast<long long>(n));
  return true;
}

// Normalizes with running statistics; save outputs become empty [0].
void bn_eval(KernelContext& ctx, const char* op, const Tensor& input, const Tensor* weight,
             const Tensor* bias, const Tensor& mean, const Tensor& var, double eps, Tensor& out,
             Tensor& save_mean, Tensor& save_invstd) {
  BnGeom g;
  if (!prepare_bn(ctx, op, input, weight, bias, out, &g)) return;
  if (!check_channel_tensor(ctx, op, "running_mean", &mean, g.channels) ||
      !check_channel_tensor(ctx, op, "running_var", &var, g.channels) ||
      !prepare_stat_out(ctx, op, "out1", save_mean, 0) ||
      !prepare_stat_out(ctx, op, "out2", save_invstd, 0)) {
    return;
  }
  for (int64_t c = 0; c < g.channels; ++c) {
    const double invstd = 1.0 / std::sqrt(channel_get(&var, c, 1.0) + eps);
    const double scale = channel_get(weight, c, 1.0) * invstd;
    const double shift = channel_get(bias, c, 0.0) - channel_get(&mean, c, 0.0) * scale;
    normalize_channel(input, out, g, c, scale, shift);
  }
}

// Normalizes with batch statistics, writes save_mean/save_invstd and, when
// given, updates the running statistics in place.
void bn_train(KernelContext& ctx, const char* op, const Tensor& input, const Tensor* weight,
              const Tensor* bias, Tensor* running_mean, Tensor* running_var, double momentum,
              double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  BnGeom g;
  if (!prepare_bn(ctx, op, input, weight, bias, out, &g)) return;
  if (!check_channel_tensor(ctx, op, "running_mean", running_mean, g.channels) ||
      !check_channel_tensor(ctx, op, "running_var", running_var, g.channels) ||
      !prepare_stat_out(ctx, op, "save_mean", save_mean, g.channels) ||
      !prepare_stat_out(ctx, op, "save_invstd", save_invstd, g.channels)) {
    return;
  }
  const int64_t count = g.batch * g.inner;
  for (int64_t c = 0; c < g.channels; ++c) {
    double mean = 0, var = 0;
    channel_stats(input, g, c, &mean, &var);
    const double invstd = 1.0 / std::sqrt(var + eps);
    const double scale = channel_get(weight, c, 1.0) * invstd;
    normalize_channel(input, out, g, c, scale, channel_get(bias, c, 0.0) - mean * scale);
    channel_set(save_mean, c, mean);
    channel_set(save_invstd, c, invstd);
    if (running_mean != nullptr) {
      const double rm = channel_get(running_mean, c, 0.0);
      channel_set(*running_mean, c, (1.0 - momentum) * rm + momentum * mean);
    }
    if (running_var != nullptr) {
      const double unbiased = count > 1 ? var * static_cast<double>(count) / (count - 1)
                                        : std::numeric_limits<double>::quiet_NaN();
      const double rv = channel_get(running_var, c, 1.0);
      channel_set(*running_var, c, (1.0 - momentum) * rv + momentum * unbiased);
    }
  }
}

}  // namespace

void native_batch_norm_legit_no_training_out(KernelContext& ctx, const Tensor& input,
                                             const Tensor* weight, const Tensor* bias,
                                             const Tensor& running_mean, const Tensor& running_var,
                                             double /*momentum*/, double eps, Tensor& out0,
                                             Tensor& out1, Tensor& out2) {
  bn_eval(ctx, "aten::_native_batch_norm_legit_no_training.out", input, weight, bias, running_mean,
          running_var, eps, out0, out1, out2);
}

void native_batch_norm_legit_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                                 const Tensor* bias, Tensor& running_mean, Tensor& running_var,
                                 bool training, double momentum, double eps, Tensor& out,
                                 Tensor& save_mean, Tensor& save_invstd) {
  constexpr const char* kOp = "aten::_native_batch_norm_legit.out";
  if (training) {
    bn_train(ctx, kOp, input, weight, bias, &running_mean, &running_var, momentum, eps, out,
             save_mean, save_invstd);
  } else {
    bn_eval(ctx, kOp, input, weight, bias, running_mean, running_var, eps, out, save_mean,
            save_invstd);
  }
}

void native_batch_norm_legit_no_stats_out(KernelContext& ctx, const Tensor& input,
                                          const Tensor* weight, const Tensor* bias, bool training,
                                          double momentum, double eps, Tensor& out,
                                          Tensor& save_mean, Tensor& save_invstd) {
  constexpr const char* kOp = "aten::_native_batch_norm_legit.no_stats_out";
  ETR_KERNEL_CHECK(ctx, training, Error::InvalidArgument,
                   "%s: running_mean must be defined in evaluation mode (training=false)", kOp);
  bn_train(ctx, kOp, input, weight, bias, nullptr, nullptr, momentum, eps, out, save_mean,
           save_invstd);
}

}  // namespace etr
