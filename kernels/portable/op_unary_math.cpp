// Unary floating-point math: sqrt, rsqrt, exp, expm1, log, log1p, log2,
// log10, sin, cos, tan, tanh, sigmoid, erf, reciprocal. Integer and bool
// inputs compute in Float (PyTorch's int-to-float promotion); out must be
// floating.
#include <cmath>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

template <typename Fn>
void unary_float(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out, Fn fn) {
  if (!kernel_ok(ctx, prepare_unary(op, self, out))) return;
  const ScalarType common = is_floating(self.dtype()) ? self.dtype() : ScalarType::Float;
  if (!kernel_ok(ctx, check_can_cast(op, common, out))) return;
  dispatch_floating(common, [&](auto tag) {
    using CT = typename decltype(tag)::type;
    apply_elementwise(out, [fn](CT x) -> CT { return fn(x); }, read_as<CT>(self));
  });
}

}  // namespace

void sqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::sqrt.out", self, out, [](auto x) { return std::sqrt(x); });
}

void rsqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::rsqrt.out", self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}

void exp_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::exp.out", self, out, [](auto x) { return std::exp(x); });
}

void expm1_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::expm1.out", self, out, [](auto x) { return std::expm1(x); });
}

void log_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::log.out", self, out, [](auto x) { return std::log(x); });
}

void log1p_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::log1p.out", self, out, [](auto x) { return std::log1p(x); });
}

void log2_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::log2.out", self, out, [](auto x) { return std::log2(x); });
}

void log10_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::log10.out", self, out, [](auto x) { return std::log10(x); });
}

void sin_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::sin.out", self, out, [](auto x) { return std::sin(x); });
}

void cos_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::cos.out", self, out, [](auto x) { return std::cos(x); });
}

void tan_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::tan.out", self, out, [](auto x) { return std::tan(x); });
}

void tanh_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::tanh.out", self, out, [](auto x) { return std::tanh(x); });
}

void sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::sigmoid.out", self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

void erf_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::erf.out", self, out, [](auto x) { return std::erf(x); });
}

void reciprocal_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  unary_float(ctx, "aten::reciprocal.out", self, out, [](auto x) {
    using T = decltype(x);
    return T(1) / x;
  });
}

}  // namespace etr
