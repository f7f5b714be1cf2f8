// Linear algebra and convolution: mm, bmm, addmm, linear, convolution. Float
// and double, every tensor of out's dtype and in the default dim order.
// Prepare steps check dtypes, ranks, dim orders and the constant arguments
// (convolution's stride/padding/dilation/output_padding/groups); run()
// checks the size relations, resizes out and computes. Parameters follow the
// ATen schema in order, outs last.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_mm.cpp
// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error mm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error bmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);

// ---- op_addmm.cpp
// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//   Tensor(a!) out)
void addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
               Scalar beta, Scalar alpha, Tensor& out);
Error addmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat1,
                    const Tensor& mat2, Scalar beta, Scalar alpha, Tensor& out);

// ---- op_linear.cpp
// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
void linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor* bias,
                Tensor& out);
Error linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, Tensor& out);

// ---- op_convolution.cpp: 1-D and 2-D, grouped, strided, dilated, padded,
// transposed.
// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, *, Tensor(a!) out)
void convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups, Tensor& out);
Error convolution_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                          const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                          IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                          int64_t groups, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kLinearAlgebraKernels[] = {
    make_kernel<&mm_out, &mm_prepare>("aten::mm.out", kFloatingTypes),
    make_kernel<&bmm_out, &bmm_prepare>("aten::bmm.out", kFloatingTypes),
    make_kernel<&addmm_out, &addmm_prepare>("aten::addmm.out", kFloatingTypes),
    make_kernel<&linear_out, &linear_prepare>("aten::linear.out", kFloatingTypes),
    make_kernel<&convolution_out, &convolution_prepare>("aten::convolution.out", kFloatingTypes),
};

}  // namespace etr
