// Optimized 2-D pooling: aten::max_pool2d_with_indices.out for Float input
// in the default dim order ([C, H, W] or [N, C, H, W]), threaded over
// planes, with an AVX2 path for windows inside the input at stride 1 or 2;
// aten::avg_pool2d.out for the 2x2 stride-2 unpadded window (DenseNet).
// Prepare declines (NotSupported) other dtypes, layouts and malformed
// windows, which the portable kernel runs or reports.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_pool_max.cpp: indices (Long) are flattened H*W positions.
// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//   int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//   Tensor(b!) indices)
void opt_max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self,
                                     IntArrayRef kernel_size, IntArrayRef stride,
                                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                     Tensor& out, Tensor& indices);
Error opt_max_pool2d_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                          IntArrayRef kernel_size, IntArrayRef stride,
                                          IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                          Tensor& out, Tensor& indices);

// ---- op_pool_avg.cpp: the 2x2, stride-2, unpadded window (ceil_mode off),
// the portable kernel's outputs bit for bit.
// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//   Tensor(a!) out)
void opt_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                        IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                        bool count_include_pad, std::optional<int64_t> divisor_override,
                        Tensor& out);
Error opt_avg_pool2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                             IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                             bool count_include_pad, std::optional<int64_t> divisor_override,
                             Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptPoolingKernels[] = {
    make_kernel<&opt_max_pool2d_with_indices_out, &opt_max_pool2d_with_indices_prepare>(
        "aten::max_pool2d_with_indices.out", DtypeSet::of(ScalarType::Float, ScalarType::Long)),
    make_kernel<&opt_avg_pool2d_out, &opt_avg_pool2d_prepare>("aten::avg_pool2d.out",
                                                              DtypeSet::of(ScalarType::Float)),
};

}  // namespace etr
