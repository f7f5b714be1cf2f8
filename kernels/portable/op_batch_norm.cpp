// Batch normalization over dim 1 of an [N, C, *] input:
//   aten::_native_batch_norm_legit_no_training.out (running statistics),
//   aten::_native_batch_norm_legit.out (training: batch statistics and a
//     running-statistics update; eval: like no_training),
//   aten::_native_batch_norm_legit.no_stats_out (training only).
// Per channel: out = x * scale + shift with scale = weight / sqrt(var + eps)
// and shift = bias - mean * scale; statistics are accumulated in double.
// Input/out float or double; per-channel tensors float or double. Any rank
// 2..16 and any dim order (channels-last included): input and out are
// addressed through their strides, with a contiguous fast path when both
// are laid out in the default order.
#include <cmath>
#include <limits>

#include "kernels/portable/normalization.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

struct BnGeom {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t inner = 1;   // product of the dims after the channel dim
  bool dense = false;  // input and out both in the default layout
};

// Calls fn(input_offset, out_offset) for every element of channel c, in
// logical order (the dims other than 1, last fastest), through the strides.
template <typename Fn>
void for_each_in_channel(const Tensor& input, const Tensor& out, const BnGeom& g, int64_t c,
                         Fn fn) {
  const size_t r = input.dim();
  int64_t pos[kTensorMaxDim] = {};
  int64_t in_off = c * input.stride(1), out_off = c * out.stride(1);
  const int64_t total = g.batch * g.inner;
  for (int64_t k = 0; k < total; ++k) {
    fn(in_off, out_off);
    for (size_t d = r; d-- > 0;) {
      if (d == 1) continue;
      if (++pos[d] < input.size(d)) {
        in_off += input.stride(d);
        out_off += out.stride(d);
        break;
      }
      pos[d] = 0;
      in_off -= (input.size(d) - 1) * input.stride(d);
      out_off -= (input.size(d) - 1) * out.stride(d);
    }
  }
}

// The tensors of one call; absent optional ones are null.
struct BnArgs {
  const Tensor& input;
  const Tensor* weight;
  const Tensor* bias;
  const Tensor* running_mean;
  const Tensor* running_var;
  Tensor& out;
  Tensor& save_mean;
  Tensor& save_invstd;
};

// Prepare: float or double input and out of the same rank (any dim order), 1-D
// per-channel tensors and save outputs (float or double: the declared set).
Error check_bn(const char* op, const BnArgs& a) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "input", a.input.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", a.out, a.input.dtype()));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", a.input, 2, kTensorMaxDim));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", a.out, a.input.dim()));
  const Tensor* vectors[] = {a.weight,      a.bias,       a.running_mean,
                             a.running_var, &a.save_mean, &a.save_invstd};
  const char* names[] = {"weight", "bias", "running_mean", "running_var", "out1", "out2"};
  for (size_t i = 0; i < 6; ++i) {
    if (vectors[i] != nullptr) ETR_RETURN_IF_ERROR(check_rank(op, names[i], *vectors[i], 1));
  }
  return Error::Ok;
}

// Run: per-channel sizes, out resized like input, save outputs to [n_save].
Error resize_bn(const char* op, const BnArgs& a, int64_t n_save, BnGeom* g) {
  ETR_RETURN_IF_ERROR(check_dispatched(op, is_floating(a.input.dtype()), a.input.dtype()));
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, a.input.dtype(), {&a.out}));
  g->batch = a.input.size(0);
  g->channels = a.input.size(1);
  g->inner = 1;
  for (size_t d = 2; d < a.input.dim(); ++d) g->inner *= a.input.size(d);
  const Tensor* channel[] = {a.weight, a.bias, a.running_mean, a.running_var};
  for (const Tensor* t : channel) {
    ETR_CHECK_OR_FAIL(t == nullptr || t->size(0) == g->channels, Error::InvalidArgument,
                      "%s: per-channel tensor %s does not match the %lld channels of input %s", op,
                      ShapeText(*t).c_str(), static_cast<long long>(g->channels),
                      ShapeText(a.input).c_str());
  }
  ETR_RETURN_IF_ERROR(resize_output(op, a.out, a.input.sizes()));
  g->dense = is_default_layout(a.input) && is_default_layout(a.out);
  ETR_RETURN_IF_ERROR(resize_output(op, a.save_mean, Span<const int64_t>(&n_save, 1)));
  return resize_output(op, a.save_invstd, Span<const int64_t>(&n_save, 1));
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
    t.data_ptr<T>()[c * t.stride(0)] = convert<T>(v);
  });
}

// out[:, c, ...] = in[:, c, ...] * scale + shift.
void normalize_channel(const Tensor& input, Tensor& out, const BnGeom& g, int64_t c, double scale,
                       double shift) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = convert<T>(scale), b = convert<T>(shift);
    if (!g.dense) {
      const T* x = input.const_data_ptr<T>();
      T* y = out.data_ptr<T>();
      for_each_in_channel(input, out, g, c, [&](int64_t i, int64_t o) { y[o] = x[i] * a + b; });
      return;
    }
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
    if (!g.dense) {
      const T* x = input.const_data_ptr<T>();
      for_each_in_channel(input, input, g, c,
                          [&](int64_t i, int64_t) { sum += static_cast<double>(x[i]); });
      const double m = count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
      for_each_in_channel(input, input, g, c, [&](int64_t i, int64_t) {
        const double d = static_cast<double>(x[i]) - m;
        sq += d * d;
      });
      *mean = m;
      return;
    }
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

// Normalizes with running statistics; save outputs become empty [0].
void bn_eval(KernelContext& ctx, const BnArgs& a, double eps) {
  BnGeom g;
  ETR_KERNEL_TRY(ctx, resize_bn(ctx.op_name(), a, 0, &g));
  for (int64_t c = 0; c < g.channels; ++c) {
    const double invstd = 1.0 / std::sqrt(channel_get(a.running_var, c, 1.0) + eps);
    const double scale = channel_get(a.weight, c, 1.0) * invstd;
    const double shift = channel_get(a.bias, c, 0.0) - channel_get(a.running_mean, c, 0.0) * scale;
    normalize_channel(a.input, a.out, g, c, scale, shift);
  }
}

// Normalizes with batch statistics, writes save_mean/save_invstd and, when
// given, updates the running statistics in place.
void bn_train(KernelContext& ctx, const BnArgs& a, Tensor* running_mean, Tensor* running_var,
              double momentum, double eps) {
  BnGeom g;
  ETR_KERNEL_TRY(ctx, resize_bn(ctx.op_name(), a, a.input.size(1), &g));
  const int64_t count = g.batch * g.inner;
  for (int64_t c = 0; c < g.channels; ++c) {
    double mean = 0, var = 0;
    channel_stats(a.input, g, c, &mean, &var);
    const double invstd = 1.0 / std::sqrt(var + eps);
    const double scale = channel_get(a.weight, c, 1.0) * invstd;
    normalize_channel(a.input, a.out, g, c, scale, channel_get(a.bias, c, 0.0) - mean * scale);
    channel_set(a.save_mean, c, mean);
    channel_set(a.save_invstd, c, invstd);
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

Error native_batch_norm_legit_no_training_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                                  const Tensor* weight, const Tensor* bias,
                                                  const Tensor& running_mean,
                                                  const Tensor& running_var, double, double,
                                                  Tensor& out0, Tensor& out1, Tensor& out2) {
  return check_bn(ctx.op_name(),
                  BnArgs{input, weight, bias, &running_mean, &running_var, out0, out1, out2});
}

void native_batch_norm_legit_no_training_out(KernelContext& ctx, const Tensor& input,
                                             const Tensor* weight, const Tensor* bias,
                                             const Tensor& running_mean, const Tensor& running_var,
                                             double /*momentum*/, double eps, Tensor& out0,
                                             Tensor& out1, Tensor& out2) {
  bn_eval(ctx, BnArgs{input, weight, bias, &running_mean, &running_var, out0, out1, out2}, eps);
}

Error native_batch_norm_legit_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                      const Tensor* weight, const Tensor* bias,
                                      Tensor& running_mean, Tensor& running_var, bool, double,
                                      double, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  return check_bn(ctx.op_name(), BnArgs{input, weight, bias, &running_mean, &running_var, out,
                                        save_mean, save_invstd});
}

void native_batch_norm_legit_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                                 const Tensor* bias, Tensor& running_mean, Tensor& running_var,
                                 bool training, double momentum, double eps, Tensor& out,
                                 Tensor& save_mean, Tensor& save_invstd) {
  const BnArgs a{input, weight, bias, &running_mean, &running_var, out, save_mean, save_invstd};
  if (training) {
    bn_train(ctx, a, &running_mean, &running_var, momentum, eps);
  } else {
    bn_eval(ctx, a, eps);
  }
}

Error native_batch_norm_legit_no_stats_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                               const Tensor* weight, const Tensor* bias,
                                               bool training, double, double, Tensor& out,
                                               Tensor& save_mean, Tensor& save_invstd) {
  ETR_CHECK_OR_FAIL(training, Error::InvalidArgument,
                    "%s: running_mean must be defined in evaluation mode (training=false)",
                    ctx.op_name());
  return check_bn(ctx.op_name(),
                  BnArgs{input, weight, bias, nullptr, nullptr, out, save_mean, save_invstd});
}

void native_batch_norm_legit_no_stats_out(KernelContext& ctx, const Tensor& input,
                                          const Tensor* weight, const Tensor* bias,
                                          bool /*training*/, double momentum, double eps,
                                          Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  bn_train(ctx, BnArgs{input, weight, bias, nullptr, nullptr, out, save_mean, save_invstd}, nullptr,
           nullptr, momentum, eps);
}

}  // namespace etr
