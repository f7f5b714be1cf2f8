// Prepare steps shared by the elementwise kernel families (arithmetic,
// unary, logical, comparison). Each runs once per instruction at load and checks what
// cannot change between executes: the promoted dtype against the op's
// domain and torch.can_cast to out's dtype. Table lines name them directly:
//   make_kernel<&mul_out, &binary_prepare>("aten::mul.out", kRealAndBoolTypes),
// Defined in util/elementwise.cpp.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- Tensor-Tensor and Tensor-Scalar: result_type(self, other)
// ... can be cast to out.
Error binary_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                     Tensor& out);
Error binary_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                            Tensor& out);
// ... is not bool and can be cast to out.
Error binary_real_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out);
Error binary_real_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                                 Tensor& out);
// ... promoted to Float when integral or bool, can be cast to out.
Error binary_float_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out);
// ... is integral or bool and can be cast to out (bitwise ops).
Error binary_bitwise_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out);
Error binary_bitwise_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                                    Tensor& out);

// ---- Unary: self's dtype
// ... is not bool and can be cast to out.
Error unary_real_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
// ... can be cast to out (bool included).
Error unary_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
// ... is integral or bool and can be cast to out (bitwise_not).
Error unary_bitwise_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
// ... promoted to Float when integral or bool, can be cast to out.
Error unary_float_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// ---- Predicates whose out may have any declared dtype (comparisons,
// logical ops, isnan/isinf): out's rank is the result's (the operands'
// broadcast rank), the only thing fixed at load.
Error binary_predicate_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                               Tensor& out);
Error binary_scalar_predicate_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar other,
                                      Tensor& out);
Error unary_predicate_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

}  // namespace etr
