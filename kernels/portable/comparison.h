// Comparisons eq, ne, lt, le, gt, ge against a Tensor or a Scalar. Operands
// are compared in their promoted dtype; the result is written in out's dtype
// (normally Bool, but any real or bool dtype is accepted, as in PyTorch), so
// prepare (binary_predicate_prepare, binary_scalar_predicate_prepare in
// util/elementwise_prepare.h) only checks out's rank. run() resizes out to
// the broadcast shape and computes. Implemented in op_comparison.cpp.
#pragma once

#include "kernels/portable/util/elementwise_prepare.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// aten::<eq|ne|lt|le|gt|ge>.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void eq_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void ne_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void lt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void le_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void gt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void ge_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::<eq|ne|lt|le|gt|ge>.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void eq_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void ne_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void lt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void le_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void gt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void ge_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);

// ---- op_allclose.cpp (the official custom_ops.yaml op): out is one Bool
// element; self and other have one dtype and broadcast together.
// aten::allclose.out(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08,
//   bool equal_nan=False, bool dummy_param=False, *, Tensor(a!) out)
void allclose_out(KernelContext& ctx, const Tensor& self, const Tensor& other, double rtol,
                  double atol, bool equal_nan, bool dummy_param, Tensor& out);
Error allclose_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& other,
                       double rtol, double atol, bool equal_nan, bool dummy_param, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kComparisonKernels[] = {
    make_kernel<&eq_tensor_out, &binary_predicate_prepare>("aten::eq.Tensor_out",
                                                           kRealAndBoolTypes),
    make_kernel<&ne_tensor_out, &binary_predicate_prepare>("aten::ne.Tensor_out",
                                                           kRealAndBoolTypes),
    make_kernel<&lt_tensor_out, &binary_predicate_prepare>("aten::lt.Tensor_out",
                                                           kRealAndBoolTypes),
    make_kernel<&le_tensor_out, &binary_predicate_prepare>("aten::le.Tensor_out",
                                                           kRealAndBoolTypes),
    make_kernel<&gt_tensor_out, &binary_predicate_prepare>("aten::gt.Tensor_out",
                                                           kRealAndBoolTypes),
    make_kernel<&ge_tensor_out, &binary_predicate_prepare>("aten::ge.Tensor_out",
                                                           kRealAndBoolTypes),
    make_kernel<&eq_scalar_out, &binary_scalar_predicate_prepare>("aten::eq.Scalar_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&ne_scalar_out, &binary_scalar_predicate_prepare>("aten::ne.Scalar_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&lt_scalar_out, &binary_scalar_predicate_prepare>("aten::lt.Scalar_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&le_scalar_out, &binary_scalar_predicate_prepare>("aten::le.Scalar_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&gt_scalar_out, &binary_scalar_predicate_prepare>("aten::gt.Scalar_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&ge_scalar_out, &binary_scalar_predicate_prepare>("aten::ge.Scalar_out",
                                                                  kRealAndBoolTypes),
    make_kernel<&allclose_out, &allclose_prepare>("aten::allclose.out", kRealAndBoolTypes),
};

}  // namespace etr
