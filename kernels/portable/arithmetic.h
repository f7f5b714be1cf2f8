// Binary arithmetic: add, sub, rsub, mul, div, floor_divide, remainder, fmod,
// pow, maximum, minimum, atan2. Operands take part in PyTorch type promotion
// (torch.result_type); the result is computed in the promoted dtype and
// cast to out's dtype. Each prepare step checks the promoted dtype against
// the op's domain and torch.can_cast to out, and the constant arguments
// (alpha, rounding_mode); run() resizes out to the broadcast shape and
// computes. Shared prepare steps (binary_prepare, ...) are in
// util/elementwise_prepare.h. Parameters follow the ATen schema, outs last.
#pragma once

#include <optional>

#include "kernels/portable/util/elementwise_prepare.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_add.cpp: out = self + alpha * other (sub: self - alpha * other;
// rsub: other - alpha * self). A floating alpha needs a floating result, a
// bool alpha a bool result; sub and rsub refuse bool results.
// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
void add_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out);
Error add_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                  Tensor& out);
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
void add_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out);
Error add_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                         Tensor& out);
// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
void sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out);
Error sub_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
                  Tensor& out);
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
void sub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out);
// Also the prepare of rsub.Scalar_out.
Error sub_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                         Tensor& out);
// aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
void rsub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                     Tensor& out);

// ---- op_mul.cpp: out = self * other (bool: logical and).
// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
void mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void mul_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);

// ---- op_div.cpp: true division computes in floating point (integers
// promote to Float); rounding modes, floor_divide, remainder (sign of the
// divisor) and fmod (sign of the dividend) keep the promoted dtype, which
// must not be bool. Integer division by zero fails with InvalidArgument.
// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out)
void div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
Error div_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void div_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
Error div_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
void div_out_mode(KernelContext& ctx, const Tensor& self, const Tensor& other,
                  std::optional<StringView> rounding_mode, Tensor& out);
Error div_mode_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                       std::optional<StringView> rounding_mode, Tensor& out);
// aten::div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
void div_scalar_mode_out(KernelContext& ctx, const Tensor& self, Scalar other,
                         std::optional<StringView> rounding_mode, Tensor& out);
Error div_scalar_mode_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                              std::optional<StringView> rounding_mode, Tensor& out);
// aten::floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out)
void floor_divide_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void remainder_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void remainder_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void fmod_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void fmod_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);

// ---- op_pow.cpp: integer powers wrap; bool results are refused.
// aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
void pow_tensor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& exponent,
                           Tensor& out);
// aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
void pow_tensor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar exponent, Tensor& out);
// aten::pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
void pow_scalar_out(KernelContext& ctx, Scalar self, const Tensor& exponent, Tensor& out);
Error pow_scalar_prepare(KernelPrepareContext& ctx, Scalar self, const Tensor& exponent,
                         Tensor& out);

// ---- op_maximum_minimum.cpp: NaN-propagating elementwise max / min.
// aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out)
void maximum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out)
void minimum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);

// ---- op_atan2.cpp: integers and bool promote to Float.
// aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out)
void atan2_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kArithmeticKernels[] = {
    make_kernel<&add_out, &add_prepare>("aten::add.out", kRealAndBoolTypes),
    make_kernel<&add_scalar_out, &add_scalar_prepare>("aten::add.Scalar_out", kRealAndBoolTypes),
    make_kernel<&sub_out, &sub_prepare>("aten::sub.out", kRealAndBoolTypes),
    make_kernel<&sub_scalar_out, &sub_scalar_prepare>("aten::sub.Scalar_out", kRealAndBoolTypes),
    make_kernel<&rsub_scalar_out, &sub_scalar_prepare>("aten::rsub.Scalar_out", kRealAndBoolTypes),
    make_kernel<&mul_out, &binary_prepare>("aten::mul.out", kRealAndBoolTypes),
    make_kernel<&mul_scalar_out, &binary_scalar_prepare>("aten::mul.Scalar_out", kRealAndBoolTypes),
    make_kernel<&div_out, &div_prepare>("aten::div.out", kRealAndBoolTypes),
    make_kernel<&div_scalar_out, &div_scalar_prepare>("aten::div.Scalar_out", kRealAndBoolTypes),
    make_kernel<&div_out_mode, &div_mode_prepare>("aten::div.out_mode", kRealAndBoolTypes),
    make_kernel<&div_scalar_mode_out, &div_scalar_mode_prepare>("aten::div.Scalar_mode_out",
                                                                kRealAndBoolTypes),
    make_kernel<&floor_divide_out, &binary_real_prepare>("aten::floor_divide.out",
                                                         kRealAndBoolTypes),
    make_kernel<&remainder_tensor_out, &binary_real_prepare>("aten::remainder.Tensor_out",
                                                             kRealAndBoolTypes),
    make_kernel<&remainder_scalar_out, &binary_real_scalar_prepare>("aten::remainder.Scalar_out",
                                                                    kRealAndBoolTypes),
    make_kernel<&fmod_tensor_out, &binary_real_prepare>("aten::fmod.Tensor_out", kRealAndBoolTypes),
    make_kernel<&fmod_scalar_out, &binary_real_scalar_prepare>("aten::fmod.Scalar_out",
                                                               kRealAndBoolTypes),
    make_kernel<&pow_tensor_tensor_out, &binary_real_prepare>("aten::pow.Tensor_Tensor_out",
                                                              kRealAndBoolTypes),
    make_kernel<&pow_tensor_scalar_out, &binary_real_scalar_prepare>("aten::pow.Tensor_Scalar_out",
                                                                     kRealAndBoolTypes),
    make_kernel<&pow_scalar_out, &pow_scalar_prepare>("aten::pow.Scalar_out", kRealAndBoolTypes),
    make_kernel<&maximum_out, &binary_prepare>("aten::maximum.out", kRealAndBoolTypes),
    make_kernel<&minimum_out, &binary_prepare>("aten::minimum.out", kRealAndBoolTypes),
    make_kernel<&atan2_out, &binary_float_prepare>("aten::atan2.out", kRealAndBoolTypes),
};

}  // namespace etr
