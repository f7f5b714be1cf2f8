// Logical and bitwise ops and selection: logical_and/or/xor/not (operands
// read as bool; out any real or bool dtype), bitwise_and/or/xor/not
// (integer and bool promoted dtypes), where and masked_fill. Prepare steps
// check the promoted dtype's domain, torch.can_cast to out and the mask
// dtypes (logical ops, whose out may have any declared dtype: out's rank); run() resizes out to the
// broadcast shape and computes. Parameters follow the ATen schema in order, outs last.
#pragma once

#include "kernels/portable/util/elementwise_prepare.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_logical.cpp
// aten::logical_<and|or|xor>.out(Tensor self, Tensor other, *, Tensor(a!) out)
void logical_and_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void logical_or_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void logical_xor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::logical_not.out(Tensor self, *, Tensor(a!) out)
void logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- op_bitwise.cpp
// aten::bitwise_<and|or|xor>.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void bitwise_and_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out);
void bitwise_or_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out);
void bitwise_xor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out);
// aten::bitwise_<and|or|xor>.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void bitwise_and_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void bitwise_or_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void bitwise_xor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::bitwise_not.out(Tensor self, *, Tensor(a!) out)
void bitwise_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- op_bitwise_shift.cpp: the promoted dtype is an integer type (not
// bool); counts outside [0, bit width) give 0 (left) or the sign fill (right).
// aten::bitwise_<left|right>_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void bitwise_left_shift_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                                   Tensor& out);
void bitwise_right_shift_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                                    Tensor& out);
Error shift_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out);
// aten::bitwise_<left|right>_shift.Tensor_Scalar_out(Tensor self, Scalar other, *,
//                                                    Tensor(a!) out)
void bitwise_left_shift_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other,
                                   Tensor& out);
void bitwise_right_shift_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other,
                                    Tensor& out);
Error shift_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                           Tensor& out);

// ---- op_where.cpp: condition is Bool (or Byte).
// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
void where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                    const Tensor& other, Tensor& out);
Error where_prepare(KernelPrepareContext& ctx, const Tensor& condition, const Tensor& self,
                    const Tensor& other, Tensor& out);

// ---- op_masked_fill.cpp: mask is Bool.
// aten::masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
void masked_fill_scalar_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                            Scalar value, Tensor& out);
Error masked_fill_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mask,
                          Scalar value, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kLogicalKernels[] = {
    make_kernel<&logical_and_out, &binary_predicate_prepare>("aten::logical_and.out",
                                                             kRealAndBoolTypes),
    make_kernel<&logical_or_out, &binary_predicate_prepare>("aten::logical_or.out",
                                                            kRealAndBoolTypes),
    make_kernel<&logical_xor_out, &binary_predicate_prepare>("aten::logical_xor.out",
                                                             kRealAndBoolTypes),
    make_kernel<&logical_not_out, &unary_predicate_prepare>("aten::logical_not.out",
                                                            kRealAndBoolTypes),
    make_kernel<&bitwise_and_tensor_out, &binary_bitwise_prepare>("aten::bitwise_and.Tensor_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&bitwise_or_tensor_out, &binary_bitwise_prepare>("aten::bitwise_or.Tensor_out",
                                                                 kRealAndBoolTypes),
    make_kernel<&bitwise_xor_tensor_out, &binary_bitwise_prepare>("aten::bitwise_xor.Tensor_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&bitwise_and_scalar_out, &binary_bitwise_scalar_prepare>(
        "aten::bitwise_and.Scalar_out", kRealAndBoolTypes),
    make_kernel<&bitwise_or_scalar_out, &binary_bitwise_scalar_prepare>(
        "aten::bitwise_or.Scalar_out", kRealAndBoolTypes),
    make_kernel<&bitwise_xor_scalar_out, &binary_bitwise_scalar_prepare>(
        "aten::bitwise_xor.Scalar_out", kRealAndBoolTypes),
    make_kernel<&bitwise_not_out, &unary_bitwise_prepare>("aten::bitwise_not.out",
                                                          kRealAndBoolTypes),
    make_kernel<&bitwise_left_shift_tensor_out, &shift_tensor_prepare>(
        "aten::bitwise_left_shift.Tensor_out", kRealAndBoolTypes),
    make_kernel<&bitwise_left_shift_scalar_out, &shift_scalar_prepare>(
        "aten::bitwise_left_shift.Tensor_Scalar_out", kRealAndBoolTypes),
    make_kernel<&bitwise_right_shift_tensor_out, &shift_tensor_prepare>(
        "aten::bitwise_right_shift.Tensor_out", kRealAndBoolTypes),
    make_kernel<&bitwise_right_shift_scalar_out, &shift_scalar_prepare>(
        "aten::bitwise_right_shift.Tensor_Scalar_out", kRealAndBoolTypes),
    make_kernel<&where_self_out, &where_prepare>("aten::where.self_out", kRealAndBoolTypes),
    make_kernel<&masked_fill_scalar_out, &masked_fill_prepare>("aten::masked_fill.Scalar_out",
                                                               kRealAndBoolTypes),
};

}  // namespace etr
