// Optimized convolution: aten::convolution.out for Float, default (NCHW) dim
// order, 1-D and 2-D, not transposed. Prepare picks the path from the
// weight's shape and the parameters (pointwise GEMM, im2col + GEMM,
// depthwise direct, per-group GEMM) and packs constant weights once; it
// declines (NotSupported) everything else, which the portable kernel runs.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_convolution.cpp
// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, *, Tensor(a!) out)
void opt_convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                         int64_t groups, Tensor& out);
Error opt_convolution_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                              const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                              IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                              int64_t groups, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptConvolutionKernels[] = {
    make_kernel<&opt_convolution_out, &opt_convolution_prepare>("aten::convolution.out",
                                                                DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
