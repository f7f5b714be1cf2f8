// Unary floating-point math: sqrt, rsqrt, exp, expm1, log, log1p, log2,
// log10, sin, cos, tan, tanh, sigmoid, erf, reciprocal. Integer and bool
// inputs compute in Float (PyTorch's int-to-float promotion); out must be
// floating (checked by unary_float_prepare).
#include <cmath>

#include "kernels/portable/unary.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// out = fn(self) computed in float_compute_type(self) (prepare:
// unary_float_prepare).
template <typename Fn>
void unary_float(KernelContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const ScalarType common = float_compute_type(self.dtype());
  ETR_KERNEL_TRY(
      ctx, dispatch_elementwise<ComputeTypes::kFloating>(ctx.op_name(), common, [&](auto tag) {
        using CT = typename decltype(tag)::type;
        return apply_elementwise(
            out, [fn](CT x) -> CT { return fn(x); }, read_as<CT>(self));
      }));
}

}  // namespace

void sqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::sqrt(x); });
}

void rsqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}

void exp_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::exp(x); });
}

void expm1_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::expm1(x); });
}

void log_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log(x); });
}

void log1p_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log1p(x); });
}

void log2_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log2(x); });
}

void log10_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::log10(x); });
}

void sin_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::sin(x); });
}

void cos_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::cos(x); });
}

void tan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::tan(x); });
}

void tanh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::tanh(x); });
}

void sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

void erf_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) { return std::erf(x); });
}

void reciprocal_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / x;
  });
}

}  // namespace etr
