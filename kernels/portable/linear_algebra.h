// Linear algebra and convolution: mm, bmm, addmm, linear, convolution. Float
// and double, every tensor of out's dtype and in the default dim order
// (convolution: any dim order, see below).
// Prepare steps check dtypes, ranks, dim orders and the constant arguments
// (convolution's stride/padding/dilation/output_padding/groups); run()
// checks the size relations, resizes out and computes. Parameters follow the
// ATen schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_mm.cpp: also the integer types (wrapping, see util/gemm.h).
// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error mm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
Error bmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);

// ---- op_addmm.cpp: also the integer types (wrapping).
// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//   Tensor(a!) out)
void addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
               Scalar beta, Scalar alpha, Tensor& out);
Error addmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat1,
                    const Tensor& mat2, Scalar beta, Scalar alpha, Tensor& out);

// ---- op_linear.cpp: also the integer types (wrapping).
// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
void linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor* bias,
                Tensor& out);
Error linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, Tensor& out);

// ---- op_convolution.cpp: 1-D, 2-D and 3-D, grouped, strided, dilated, padded,
// transposed; input, weight and out each in any dim order (default or
// channels-last), the out written through its own strides.
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

// ---- op_cdist.cpp: p-norm distances between rows (Float, Double).
// aten::_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *,
//   Tensor(a!) out)
void cdist_forward_out(KernelContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                       std::optional<int64_t> compute_mode, Tensor& out);
Error cdist_forward_prepare(KernelPrepareContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                            std::optional<int64_t> compute_mode, Tensor& out);
// aten::_pdist_forward.out(Tensor self, float p=2., *, Tensor(a!) out)
void pdist_forward_out(KernelContext& ctx, const Tensor& self, double p, Tensor& out);
Error pdist_forward_prepare(KernelPrepareContext& ctx, const Tensor& self, double p, Tensor& out);

// ---- op_convolution_backward.cpp: 1-D and 2-D, plain and transposed.
// aten::convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight,
//   SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed,
//   SymInt[] output_padding, SymInt groups, bool[3] output_mask, *, Tensor(a!) out0,
//   Tensor(b!) out1, Tensor(c!) out2)
void convolution_backward_out(KernelContext& ctx, const Tensor& grad_output, const Tensor& input,
                              const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
                              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                              bool transposed, IntArrayRef output_padding, int64_t groups,
                              Span<const bool> output_mask, Tensor& grad_input, Tensor& grad_weight,
                              Tensor& grad_bias);
Error convolution_backward_prepare(KernelPrepareContext& ctx, const Tensor& grad_output,
                                   const Tensor& input, const Tensor& weight,
                                   std::optional<IntArrayRef> bias_sizes, IntArrayRef stride,
                                   IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                   IntArrayRef output_padding, int64_t groups,
                                   Span<const bool> output_mask, Tensor& grad_input,
                                   Tensor& grad_weight, Tensor& grad_bias);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kLinearAlgebraKernels[] = {
    make_kernel<&mm_out, &mm_prepare>("aten::mm.out", kRealTypes),
    make_kernel<&bmm_out, &bmm_prepare>("aten::bmm.out", kRealTypes),
    make_kernel<&addmm_out, &addmm_prepare>("aten::addmm.out", kRealTypes),
    make_kernel<&linear_out, &linear_prepare>("aten::linear.out", kRealTypes),
    make_kernel<&convolution_out, &convolution_prepare>("aten::convolution.out", kFloatingTypes),
    make_kernel<&cdist_forward_out, &cdist_forward_prepare>("aten::_cdist_forward.out",
                                                            kFloatingTypes),
    make_kernel<&pdist_forward_out, &pdist_forward_prepare>("aten::_pdist_forward.out",
                                                            kFloatingTypes),
    make_kernel<&convolution_backward_out, &convolution_backward_prepare>(
        "aten::convolution_backward.out", kFloatingTypes),
};

}  // namespace etr
