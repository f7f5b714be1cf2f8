// 2-D and 3-D pooling over the last two (three) dims of a [C, H, W] or
// [N, C, H, W] ([C, D, H, W] or [N, C, D, H, W]) input: max pooling with
// indices, average pooling and adaptive average pooling. Window placement,
// ceil_mode, padding and divisor rules follow PyTorch; sums accumulate in
// double. Float and double, any dim order (default or channels-last; each
// operand is read and written through its own strides). Prepare
// steps check dtypes, ranks and the window parameters; run()
// computes the output extent from the input's sizes, resizes and pools.
// Parameters follow the ATen schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_max_pool2d.cpp: indices (Long) are flattened H*W positions.
// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//   int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//   Tensor(b!) indices)
void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices);
Error max_pool2d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                      Tensor& out, Tensor& indices);

// ---- op_avg_pool2d.cpp
// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//   Tensor(a!) out)
void avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out);
Error avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                         IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                         bool count_include_pad, std::optional<int64_t> divisor_override,
                         Tensor& out);
// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
void adaptive_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out);
Error adaptive_avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  IntArrayRef output_size, Tensor& out);

// ---- op_max_pool2d_backward.cpp: Float/Double, indices Long (range-checked), any dim order.
// aten::max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self,
//   int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode,
//   Tensor indices, *, Tensor(a!) grad_input)
void max_pool2d_with_indices_backward_grad_input(KernelContext& ctx, const Tensor& grad_output,
                                                 const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef stride, IntArrayRef padding,
                                                 IntArrayRef dilation, bool ceil_mode,
                                                 const Tensor& indices, Tensor& grad_input);
Error max_pool2d_with_indices_backward_prepare(KernelPrepareContext& ctx, const Tensor& grad_output,
                                               const Tensor& self, IntArrayRef kernel_size,
                                               IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation, bool ceil_mode,
                                               const Tensor& indices, Tensor& grad_input);

// ---- op_pool3d.cpp: indices (Long) are flattened D*H*W positions.
// aten::max_pool3d_with_indices.out(Tensor self, int[3] kernel_size, int[3] stride=[],
//   int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//   Tensor(b!) indices)
void max_pool3d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices);
Error max_pool3d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                      IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                      Tensor& out, Tensor& indices);
// aten::avg_pool3d.out(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//   Tensor(a!) out)
void avg_pool3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out);
Error avg_pool3d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                         IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                         bool count_include_pad, std::optional<int64_t> divisor_override,
                         Tensor& out);
// aten::_adaptive_avg_pool3d.out(Tensor self, SymInt[3] output_size, *, Tensor(a!) out)
void adaptive_avg_pool3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out);
Error adaptive_avg_pool3d_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                  IntArrayRef output_size, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kPoolingKernels[] = {
    make_kernel<&max_pool2d_with_indices_out, &max_pool2d_with_indices_prepare>(
        "aten::max_pool2d_with_indices.out", kRealTypes),
    make_kernel<&avg_pool2d_out, &avg_pool2d_prepare>("aten::avg_pool2d.out", kFloatingTypes),
    make_kernel<&adaptive_avg_pool2d_out, &adaptive_avg_pool2d_prepare>(
        "aten::_adaptive_avg_pool2d.out", kFloatingTypes),
    make_kernel<&max_pool2d_with_indices_backward_grad_input,
                &max_pool2d_with_indices_backward_prepare>(
        "aten::max_pool2d_with_indices_backward.grad_input",
        kFloatingTypes | DtypeSet::of(ScalarType::Long)),
    make_kernel<&max_pool3d_with_indices_out, &max_pool3d_with_indices_prepare>(
        "aten::max_pool3d_with_indices.out", kFloatingTypes | DtypeSet::of(ScalarType::Long)),
    make_kernel<&avg_pool3d_out, &avg_pool3d_prepare>("aten::avg_pool3d.out", kFloatingTypes),
    make_kernel<&adaptive_avg_pool3d_out, &adaptive_avg_pool3d_prepare>(
        "aten::_adaptive_avg_pool3d.out", kFloatingTypes),
};

}  // namespace etr
