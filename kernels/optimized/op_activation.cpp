// Activations over contiguous Float tensors (see activation.h): one
// vec_math.h call per chunk, chunks spread over the thread pool.
#include <cmath>
#include <limits>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/activation.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"

namespace etr {
namespace {

// Elements per chunk: cheap ops (relu, clamp) and transcendental ones.
constexpr size_t kCheapGrain = 32768;
constexpr size_t kMathGrain = 32768;

bool float_default(const Tensor& t) {
  return t.dtype() == ScalarType::Float && opt::has_default_dim_order(t);
}

void run_unary(KernelContext& ctx, const opt::UnaryParams& p, size_t grain, const Tensor& self,
               Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const float* x = self.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  parallel_for(ctx.thread_pool(), static_cast<size_t>(self.numel()), grain,
               [&](size_t begin, size_t end) { opt::unary(p, x + begin, y + begin, end - begin); });
}

bool is_nan_scalar(const Scalar& s) { return s.is_floating() && std::isnan(s.to_double()); }

void run_clamp(KernelContext& ctx, const Tensor& self, float lo, float hi, Tensor& out) {
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kClamp;
  p.lo = lo;
  p.hi = hi;
  run_unary(ctx, p, kCheapGrain, self, out);
}

}  // namespace

Error opt_unary_float_prepare(KernelPrepareContext&, const Tensor& self, Tensor& out) {
  return float_default(self) && float_default(out) ? Error::Ok : Error::NotSupported;
}

void opt_relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kRelu;
  run_unary(ctx, p, kCheapGrain, self, out);
}

void opt_sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kSigmoid;
  run_unary(ctx, p, kMathGrain, self, out);
}

Error opt_gelu_prepare(KernelPrepareContext& ctx, const Tensor& self, StringView approximate,
                       Tensor& out) {
  if (!(approximate == StringView("tanh") || approximate == StringView("none"))) {
    return Error::NotSupported;  // the portable kernel explains the refusal
  }
  return opt_unary_float_prepare(ctx, self, out);
}

void opt_gelu_out(KernelContext& ctx, const Tensor& self, StringView approximate, Tensor& out) {
  opt::UnaryParams p;
  p.kind = approximate == StringView("tanh") ? opt::UnaryKind::kGeluTanh : opt::UnaryKind::kGeluErf;
  run_unary(ctx, p, kMathGrain, self, out);
}

Error opt_hardtanh_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar min_val,
                           Scalar max_val, Tensor& out) {
  if (is_nan_scalar(min_val) || is_nan_scalar(max_val)) return Error::NotSupported;
  return opt_unary_float_prepare(ctx, self, out);
}

void opt_hardtanh_out(KernelContext& ctx, const Tensor& self, Scalar min_val, Scalar max_val,
                      Tensor& out) {
  run_clamp(ctx, self, scalar_to<float>(min_val), scalar_to<float>(max_val), out);
}

Error opt_clamp_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<Scalar> min,
                        std::optional<Scalar> max, Tensor& out) {
  // Neither bound is an error the portable kernel reports.
  if (!min.has_value() && !max.has_value()) return Error::NotSupported;
  if ((min.has_value() && is_nan_scalar(*min)) || (max.has_value() && is_nan_scalar(*max))) {
    return Error::NotSupported;
  }
  return opt_unary_float_prepare(ctx, self, out);
}

void opt_clamp_out(KernelContext& ctx, const Tensor& self, std::optional<Scalar> min,
                   std::optional<Scalar> max, Tensor& out) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  run_clamp(ctx, self, min.has_value() ? scalar_to<float>(*min) : -kInf,
            max.has_value() ? scalar_to<float>(*max) : kInf, out);
}

}  // namespace etr
