// aten::_native_batch_norm_legit_no_training.out for default-layout Float
// [N, C, *] tensors: per channel scale = weight / sqrt(var + eps) and shift =
// bias - mean * scale in double (the current running statistics), then
// out = x * scale + shift over each contiguous [*] plane, planes spread over
// the thread pool. Same arithmetic as the portable kernel. And
// etr::batch_norm_relu.fused, the batch norm followed by relu (a DenseNet's
// pre-activation): the same, each block clamped at 0 right after it is
// written, so the result is that of the two kernels in one pass.
#include <cmath>

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

}  // namespace

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
