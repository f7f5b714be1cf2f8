// Comparisons eq, ne, lt, le, gt, ge against a Tensor or a Scalar. Operands
// are compared in their promoted dtype; the result is written in out's dtype
// (normally Bool, but any real or bool dtype is accepted, as in PyTorch), so
// there is nothing to prepare beyond the declared dtypes. run() resizes out
// to the broadcast shape and computes. Implemented in op_comparison.cpp.
#pragma once

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

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kComparisonKernels[] = {
    make_kernel<&eq_tensor_out>("aten::eq.Tensor_out", kRealAndBoolTypes),
    make_kernel<&ne_tensor_out>("aten::ne.Tensor_out", kRealAndBoolTypes),
    make_kernel<&lt_tensor_out>("aten::lt.Tensor_out", kRealAndBoolTypes),
    make_kernel<&le_tensor_out>("aten::le.Tensor_out", kRealAndBoolTypes),
    make_kernel<&gt_tensor_out>("aten::gt.Tensor_out", kRealAndBoolTypes),
    make_kernel<&ge_tensor_out>("aten::ge.Tensor_out", kRealAndBoolTypes),
    make_kernel<&eq_scalar_out>("aten::eq.Scalar_out", kRealAndBoolTypes),
    make_kernel<&ne_scalar_out>("aten::ne.Scalar_out", kRealAndBoolTypes),
    make_kernel<&lt_scalar_out>("aten::lt.Scalar_out", kRealAndBoolTypes),
    make_kernel<&le_scalar_out>("aten::le.Scalar_out", kRealAndBoolTypes),
    make_kernel<&gt_scalar_out>("aten::gt.Scalar_out", kRealAndBoolTypes),
    make_kernel<&ge_scalar_out>("aten::ge.Scalar_out", kRealAndBoolTypes),
};

}  // namespace etr
