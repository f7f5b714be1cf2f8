// Unary elementwise math: floating functions (sqrt ... reciprocal), neg,
// abs, sign, rounding, isnan/isinf. Prepare steps (util/elementwise_prepare.h)
// check the compute dtype against the op's domain and torch.can_cast to out;
// run() resizes out like self and computes. Each function is the out variant
// aten::<name>.out(Tensor self, *, Tensor(a!) out).
#pragma once

#include <optional>

#include "kernels/portable/util/elementwise_prepare.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_unary_math.cpp: computed in self's floating dtype (integers and
// bool in Float); out must be floating.
void sqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void rsqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void exp_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void expm1_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log1p_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log2_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log10_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sin_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void cos_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void tan_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void tanh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void erf_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void reciprocal_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void acos_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void asin_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void atan_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void acosh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void asinh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void atanh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sinh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void cosh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::logit.out(Tensor self, float? eps=None, *, Tensor(a!) out): x clamped
// to [eps, 1 - eps] when eps >= 0.
void logit_out(KernelContext& ctx, const Tensor& self, std::optional<double> eps, Tensor& out);
Error logit_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<double> eps,
                    Tensor& out);

// ---- op_neg_abs_sign.cpp: computed in self's dtype (neg, abs: not bool).
void neg_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void abs_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sign_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- op_rounding.cpp: ceil, floor, round (half to even), trunc; integers
// pass through.
void ceil_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void floor_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void round_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void trunc_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- op_isnan_isinf.cpp: predicates; out may have any real or bool dtype
// (unary_predicate_prepare checks its rank).
void isnan_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void isinf_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kUnaryKernels[] = {
    make_kernel<&sqrt_out, &unary_float_prepare>("aten::sqrt.out", kRealAndBoolTypes),
    make_kernel<&rsqrt_out, &unary_float_prepare>("aten::rsqrt.out", kRealAndBoolTypes),
    make_kernel<&exp_out, &unary_float_prepare>("aten::exp.out", kRealAndBoolTypes),
    make_kernel<&expm1_out, &unary_float_prepare>("aten::expm1.out", kRealAndBoolTypes),
    make_kernel<&log_out, &unary_float_prepare>("aten::log.out", kRealAndBoolTypes),
    make_kernel<&log1p_out, &unary_float_prepare>("aten::log1p.out", kRealAndBoolTypes),
    make_kernel<&log2_out, &unary_float_prepare>("aten::log2.out", kRealAndBoolTypes),
    make_kernel<&log10_out, &unary_float_prepare>("aten::log10.out", kRealAndBoolTypes),
    make_kernel<&sin_out, &unary_float_prepare>("aten::sin.out", kRealAndBoolTypes),
    make_kernel<&cos_out, &unary_float_prepare>("aten::cos.out", kRealAndBoolTypes),
    make_kernel<&tan_out, &unary_float_prepare>("aten::tan.out", kRealAndBoolTypes),
    make_kernel<&tanh_out, &unary_float_prepare>("aten::tanh.out", kRealAndBoolTypes),
    make_kernel<&sigmoid_out, &unary_float_prepare>("aten::sigmoid.out", kRealAndBoolTypes),
    make_kernel<&erf_out, &unary_float_prepare>("aten::erf.out", kRealAndBoolTypes),
    make_kernel<&reciprocal_out, &unary_float_prepare>("aten::reciprocal.out", kRealAndBoolTypes),
    make_kernel<&acos_out, &unary_float_prepare>("aten::acos.out", kRealAndBoolTypes),
    make_kernel<&asin_out, &unary_float_prepare>("aten::asin.out", kRealAndBoolTypes),
    make_kernel<&atan_out, &unary_float_prepare>("aten::atan.out", kRealAndBoolTypes),
    make_kernel<&acosh_out, &unary_float_prepare>("aten::acosh.out", kRealAndBoolTypes),
    make_kernel<&asinh_out, &unary_float_prepare>("aten::asinh.out", kRealAndBoolTypes),
    make_kernel<&atanh_out, &unary_float_prepare>("aten::atanh.out", kRealAndBoolTypes),
    make_kernel<&sinh_out, &unary_float_prepare>("aten::sinh.out", kRealAndBoolTypes),
    make_kernel<&cosh_out, &unary_float_prepare>("aten::cosh.out", kRealAndBoolTypes),
    make_kernel<&logit_out, &logit_prepare>(
        "aten::logit.out",
        kRealAndBoolTypes | DtypeSet::of(ScalarType::Half, ScalarType::BFloat16)),
    make_kernel<&neg_out, &unary_real_prepare>("aten::neg.out", kRealTypes),
    make_kernel<&abs_out, &unary_real_prepare>("aten::abs.out", kRealTypes),
    make_kernel<&sign_out, &unary_prepare>("aten::sign.out", kRealAndBoolTypes),
    make_kernel<&ceil_out, &unary_real_prepare>("aten::ceil.out", kRealTypes),
    make_kernel<&floor_out, &unary_real_prepare>("aten::floor.out", kRealTypes),
    make_kernel<&round_out, &unary_real_prepare>("aten::round.out", kRealTypes),
    make_kernel<&trunc_out, &unary_real_prepare>("aten::trunc.out", kRealTypes),
    make_kernel<&isnan_out, &unary_predicate_prepare>("aten::isnan.out", kRealAndBoolTypes),
    make_kernel<&isinf_out, &unary_predicate_prepare>("aten::isinf.out", kRealAndBoolTypes),
};

}  // namespace etr
