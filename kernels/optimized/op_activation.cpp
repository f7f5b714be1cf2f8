// Activations over contiguous Float tensors (see activation.h): one
// vec_math.h call per chunk, chunks spread over the thread pool.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/activation.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"

namespace etr {
namespace {

// Elements per chunk: cheap ops (relu, clamp) and transcendental ones (at
// 0.3-0.4 ns per element on Zen 4 a chunk of 8192 is ~3 us of work: the
// decoder's [64, 512] GELU, 12.7 us, now splits over 2 threads).
constexpr size_t kCheapGrain = 32768;
constexpr size_t kMathGrain = 8192;

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

Error opt_gelu_clone_prepare(KernelPrepareContext& ctx, const Tensor& self, StringView approximate,
                             std::optional<IntArrayRef> dim_order, Tensor&, Tensor& out) {
  // The clone must keep the default layout (dim order 0, 1, ..., n - 1).
  if (dim_order.has_value()) {
    if (dim_order->size() != out.dim()) return Error::NotSupported;
    for (size_t i = 0; i < dim_order->size(); ++i) {
      if ((*dim_order)[i] != static_cast<int64_t>(i)) return Error::NotSupported;
    }
  }
  return opt_gelu_prepare(ctx, self, approximate, out);
}

void opt_gelu_clone_out(KernelContext& ctx, const Tensor& self, StringView approximate,
                        std::optional<IntArrayRef>, Tensor& scratch, Tensor& out) {
  // Elementwise, so in place is fine; a partial overlap goes through the
  // gelu's own output (apart from self, the loader checked).
  if (!opt::share_memory(out, self) || out.const_data() == self.const_data()) {
    opt_gelu_out(ctx, self, approximate, out);
    return;
  }
  opt_gelu_out(ctx, self, approximate, scratch);
  if (ctx.failure_state() != Error::Ok) return;
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  std::memmove(out.mutable_data(), scratch.const_data(), out.nbytes());
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

namespace {

// The value of a one-element Long, Int, Float or Double tensor as float (what
// the exporter's _to_dim_order_copy to Float makes of it); false otherwise.
bool one_value(const Tensor& t, float* v) {
  if (t.numel() != 1) return false;
  switch (t.dtype()) {
    case ScalarType::Float: *v = t.const_data_ptr<float>()[0]; return true;
    case ScalarType::Double: *v = static_cast<float>(t.const_data_ptr<double>()[0]); return true;
    case ScalarType::Long: *v = static_cast<float>(t.const_data_ptr<int64_t>()[0]); return true;
    case ScalarType::Int: *v = static_cast<float>(t.const_data_ptr<int32_t>()[0]); return true;
    default: return false;
  }
}

bool nan_bound(const std::optional<Scalar>& s) { return s.has_value() && is_nan_scalar(*s); }

float bound_or(const std::optional<Scalar>& s, float absent) {
  return s.has_value() ? scalar_to<float>(*s) : absent;
}

}  // namespace

Error opt_hardswish_fused_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  const Tensor& shift, std::optional<Scalar> min1,
                                  std::optional<Scalar> max1, std::optional<Scalar> min2,
                                  std::optional<Scalar> max2, const Tensor& divisor, Tensor& out) {
  // The shift is the add's Float operand (a 0-dim copy made at run time);
  // the divisor is read at run, when the copy would have been made.
  const bool scalars =
      shift.numel() == 1 && shift.dtype() == ScalarType::Float && divisor.numel() == 1 &&
      (divisor.dtype() == ScalarType::Long || divisor.dtype() == ScalarType::Int ||
       divisor.dtype() == ScalarType::Float || divisor.dtype() == ScalarType::Double);
  if (!scalars || nan_bound(min1) || nan_bound(max1) || nan_bound(min2) || nan_bound(max2) ||
      (!min1.has_value() && !max1.has_value()) || (!min2.has_value() && !max2.has_value())) {
    return Error::NotSupported;  // the steps run one by one
  }
  return opt_unary_float_prepare(ctx, self, out);
}

void opt_hardswish_fused_out(KernelContext& ctx, const Tensor& self, const Tensor& shift,
                             std::optional<Scalar> min1, std::optional<Scalar> max1,
                             std::optional<Scalar> min2, std::optional<Scalar> max2,
                             const Tensor& divisor, Tensor& out) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kHardswish;
  ETR_KERNEL_CHECK(ctx, one_value(shift, &p.shift) && one_value(divisor, &p.divisor),
                   Error::InvalidArgument,
                   "%s: shift %s and divisor %s must be one-element real tensors", ctx.op_name(),
                   ShapeText(shift).c_str(), ShapeText(divisor).c_str());
  p.lo = bound_or(min1, -kInf);
  p.hi = bound_or(max1, kInf);
  p.lo2 = bound_or(min2, -kInf);
  p.hi2 = bound_or(max2, kInf);
  run_unary(ctx, p, kCheapGrain, self, out);
}

}  // namespace etr
