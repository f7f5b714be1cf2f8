// aten::_native_batch_norm_legit_no_training.out for default-layout Float
// [N, C, *] tensors: per channel scale = weight / sqrt(var + eps) and shift =
// bias - mean * scale in double (the current running statistics), then
// out = x * scale + shift over each contiguous [*] plane, planes spread over
// the thread pool. Same arithmetic as the portable kernel. And
// etr::batch_norm_relu.fused, the batch norm followed by relu (a DenseNet's
// pre-activation): the same, each block clamped at 0 right after it is
// written, so the result is that of the two kernels in one pass. And
// etr::cat_batch_norm_relu.fused, a channel concatenation whose output only
// feeds that (a DenseNet's dense layer input): each input plane normalized
// straight into the relu's output, so the concatenation is never written.
#include <cmath>
#include <cstring>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/normalization.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

constexpr size_t kGrainElements = 32768;

bool float_vector(const Tensor* t) {
  return t == nullptr || (t->dtype() == ScalarType::Float && t->dim() == 1);
}

double channel(const Tensor* t, int64_t c, double dflt) {
  return t == nullptr ? dflt : static_cast<double>(t->const_data_ptr<float>()[c * t->stride(0)]);
}

// Elements per step of the fused batch norm -> relu: the affine result is
// clamped while it is still in L1.
constexpr size_t kReluBlock = 2048;

bool prepare_ok(const Tensor& input, const Tensor* weight, const Tensor* bias,
                const Tensor& running_mean, const Tensor& running_var, const Tensor& out) {
  return input.dtype() == ScalarType::Float && out.dtype() == ScalarType::Float &&
         input.dim() >= 2 && opt::has_default_dim_order(input) && opt::has_default_dim_order(out) &&
         float_vector(weight) && float_vector(bias) && float_vector(&running_mean) &&
         float_vector(&running_var);
}

// out = x * scale + shift per channel, then max(out, 0) with `relu`.
void run_batch_norm(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                    const Tensor* bias, const Tensor& running_mean, const Tensor& running_var,
                    double eps, Tensor& out, bool relu) {
  const char* op = ctx.op_name();
  const int64_t batch = input.size(0);
  const int64_t channels = input.size(1);
  int64_t inner = 1;
  for (size_t d = 2; d < input.dim(); ++d) inner *= input.size(d);
  for (const Tensor* t : {weight, bias, &running_mean, &running_var}) {
    ETR_KERNEL_CHECK(ctx, t == nullptr || t->size(0) == channels, Error::InvalidArgument,
                     "%s: per-channel tensor %s does not match the %lld channels of input %s", op,
                     ShapeText(*t).c_str(), static_cast<long long>(channels),
                     ShapeText(input).c_str());
  }
  ETR_KERNEL_TRY(ctx, resize_output(op, out, input.sizes()));
  const float* x = input.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  const size_t n = static_cast<size_t>(inner);
  const size_t planes = static_cast<size_t>(batch * channels);
  const size_t grain = n >= kGrainElements ? 1 : kGrainElements / (n == 0 ? 1 : n);
  opt::UnaryParams clamp;
  clamp.kind = opt::UnaryKind::kRelu;
  parallel_for(ctx.thread_pool(), planes, grain, [&](size_t begin, size_t end) {
    for (size_t p = begin; p < end; ++p) {
      const int64_t c = static_cast<int64_t>(p) % channels;
      const double invstd = 1.0 / std::sqrt(channel(&running_var, c, 1.0) + eps);
      const double scale = channel(weight, c, 1.0) * invstd;
      const double shift = channel(bias, c, 0.0) - channel(&running_mean, c, 0.0) * scale;
      if (!relu) {
        opt::affine(x + p * n, static_cast<float>(scale), static_cast<float>(shift), y + p * n, n);
        continue;
      }
      for (size_t i = 0; i < n; i += kReluBlock) {
        const size_t m = n - i < kReluBlock ? n - i : kReluBlock;
        float* yb = y + p * n + i;
        opt::affine(x + p * n + i, static_cast<float>(scale), static_cast<float>(shift), yb, m);
        opt::unary(clamp, yb, yb, m);
      }
    }
  });
}

bool share_memory(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  return a0 != nullptr && b0 != nullptr && a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// Whole 64-byte lines of floats.
constexpr int64_t kLineFloats = 16;

// For etr::cat_batch_norm_relu.fused: the inputs are Float tensors of one
// rank (at least 2) in the default dim order, concatenated along dim 1
// (channels).
bool cat_channels_ok(TensorList tensors, int64_t dim, const Tensor& out) {
  const int64_t rank = static_cast<int64_t>(out.dim());
  if (tensors.size() == 0 || rank < 2 || out.dtype() != ScalarType::Float ||
      !opt::has_default_dim_order(out) || (dim < 0 ? dim + rank : dim) != 1) {
    return false;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() != out.dim() || t.dtype() != ScalarType::Float || !opt::has_default_dim_order(t)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Error opt_cat_batch_norm_relu_prepare(KernelPrepareContext&, TensorList tensors, int64_t dim,
                                      const Tensor* weight, const Tensor* bias,
                                      const Tensor& running_mean, const Tensor& running_var, double,
                                      double, Tensor& scratch, Tensor& out) {
  if (!cat_channels_ok(tensors, dim, out) ||
      !prepare_ok(out, weight, bias, running_mean, running_var, out) ||
      scratch.dtype() != ScalarType::Float) {
    return Error::NotSupported;
  }
  // Planes of whole lines only: elsewhere the pointwise convolution after a
  // DenseNet's pre-activation takes the batch norm into its input packing
  // (etr::bn_relu_conv_bn_relu.fused), which measured faster there.
  int64_t inner = 1;
  for (size_t d = 2; d < out.dim(); ++d) inner *= out.size(d);
  if (inner % kLineFloats != 0) return Error::NotSupported;
  // The scratch (the cat's own output) must be apart from every input.
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (share_memory(scratch, tensors[i])) return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_cat_batch_norm_relu_out(KernelContext& ctx, TensorList tensors, int64_t dim,
                                 const Tensor* weight, const Tensor* bias,
                                 const Tensor& running_mean, const Tensor& running_var, double,
                                 double eps, Tensor& scratch, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx, cat_channels_ok(tensors, dim, out), Error::InvalidArgument,
                   "%s: the inputs are not Float tensors of out's rank in the default dim order "
                   "concatenated along dim 1",
                   op);
  const Tensor& ref = tensors[0];
  const size_t rank = ref.dim();
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < rank; ++k) sizes[k] = ref.size(k);
  sizes[1] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    bool match = true;
    for (size_t k = 0; match && k < rank; ++k) match = k == 1 || t.size(k) == ref.size(k);
    ETR_KERNEL_CHECK(ctx, match, Error::InvalidArgument,
                     "%s: tensor %zu %s does not match %s except in dim 1", op, i,
                     ShapeText(t).c_str(), ShapeText(ref).c_str());
    sizes[1] += t.size(1);
  }
  const int64_t batch = sizes[0], channels = sizes[1];
  for (const Tensor* t : {weight, bias, &running_mean, &running_var}) {
    ETR_KERNEL_CHECK(ctx, t == nullptr || t->size(0) == channels, Error::InvalidArgument,
                     "%s: per-channel tensor %s does not match the %lld concatenated channels", op,
                     ShapeText(*t).c_str(), static_cast<long long>(channels));
  }
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, rank)));
  if (out.numel() == 0) return;
  // Into out, or, when the memory plan put out over an input (one that
  // dies here), into the scratch (the cat's output, apart from the inputs
  // and, live before the batch norm, from its tensors), then moved.
  bool direct = true;
  for (size_t i = 0; i < tensors.size() && direct; ++i) direct = !share_memory(out, tensors[i]);
  for (const Tensor* t : {weight, bias, &running_mean, &running_var}) {
    direct = direct && (t == nullptr || !share_memory(out, *t));
  }
  if (!direct) {
    bool apart = scratch.capacity_bytes() >= out.nbytes();
    for (size_t i = 0; i < tensors.size() && apart; ++i) apart = !share_memory(scratch, tensors[i]);
    ETR_KERNEL_CHECK(ctx, apart, Error::Internal,
                     "%s: out lies over an input and the scratch (%zu bytes) cannot stand in", op,
                     scratch.capacity_bytes());
  }
  float* y = static_cast<float*>(direct ? out.mutable_data() : scratch.mutable_data());
  const size_t n = static_cast<size_t>(out.numel() / (batch * channels));
  const size_t planes = static_cast<size_t>(batch * channels);
  const size_t grain = n >= kGrainElements ? 1 : kGrainElements / (n == 0 ? 1 : n);
  opt::UnaryParams clamp;
  clamp.kind = opt::UnaryKind::kRelu;
  parallel_for(ctx.thread_pool(), planes, grain, [&](size_t begin, size_t end) {
    // The input holding plane `begin` and its first channel, then onwards.
    const int64_t c_begin = static_cast<int64_t>(begin) % channels;
    size_t i = 0;
    int64_t c0 = 0;
    while (c0 + tensors[i].size(1) <= c_begin) c0 += tensors[i++].size(1);
    for (size_t p = begin; p < end; ++p) {
      const int64_t b = static_cast<int64_t>(p) / channels;
      const int64_t c = static_cast<int64_t>(p) % channels;
      if (c == 0) {
        i = 0;
        c0 = 0;
      }
      while (c >= c0 + tensors[i].size(1)) c0 += tensors[i++].size(1);
      const int64_t ci = tensors[i].size(1);
      const float* x =
          tensors[i].const_data_ptr<float>() + (b * ci + (c - c0)) * static_cast<int64_t>(n);
      const double invstd = 1.0 / std::sqrt(channel(&running_var, c, 1.0) + eps);
      const double scale = channel(weight, c, 1.0) * invstd;
      const double shift = channel(bias, c, 0.0) - channel(&running_mean, c, 0.0) * scale;
      for (size_t j = 0; j < n; j += kReluBlock) {
        const size_t m = n - j < kReluBlock ? n - j : kReluBlock;
        float* yb = y + p * n + j;
        opt::affine(x + j, static_cast<float>(scale), static_cast<float>(shift), yb, m);
        opt::unary(clamp, yb, yb, m);
      }
    }
  });
  if (direct || ctx.failure_state() != Error::Ok) return;
  std::memmove(out.mutable_data(), scratch.const_data(), out.nbytes());
}

Error opt_batch_norm_no_training_prepare(KernelPrepareContext&, const Tensor& input,
                                         const Tensor* weight, const Tensor* bias,
                                         const Tensor& running_mean, const Tensor& running_var,
                                         double, double, Tensor& out0, Tensor& out1, Tensor& out2) {
  const bool ok = prepare_ok(input, weight, bias, running_mean, running_var, out0) &&
                  out1.dim() == 1 && out2.dim() == 1;
  return ok ? Error::Ok : Error::NotSupported;
}

void opt_batch_norm_no_training_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                                    const Tensor* bias, const Tensor& running_mean,
                                    const Tensor& running_var, double, double eps, Tensor& out0,
                                    Tensor& out1, Tensor& out2) {
  const int64_t empty = 0;
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out1, Span<const int64_t>(&empty, 1)));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out2, Span<const int64_t>(&empty, 1)));
  run_batch_norm(ctx, input, weight, bias, running_mean, running_var, eps, out0, false);
}

Error opt_batch_norm_relu_prepare(KernelPrepareContext&, const Tensor& input, const Tensor* weight,
                                  const Tensor* bias, const Tensor& running_mean,
                                  const Tensor& running_var, double, double, Tensor& out) {
  return prepare_ok(input, weight, bias, running_mean, running_var, out) ? Error::Ok
                                                                         : Error::NotSupported;
}

void opt_batch_norm_relu_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                             const Tensor* bias, const Tensor& running_mean,
                             const Tensor& running_var, double, double eps, Tensor& out) {
  run_batch_norm(ctx, input, weight, bias, running_mean, running_var, eps, out, true);
}

}  // namespace etr
