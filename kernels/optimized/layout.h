// Optimized layout kernels: aten::permute_copy.out for default-layout
// tensors of 1-, 2-, 4- and 8-byte dtypes. Dims of size 1 are dropped and
// dims that stay adjacent in the input are merged; what remains is either a
// batch of contiguous row copies or a cache-blocked 2-D transpose repeated
// over the other dims, split over the thread pool.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_permute_copy.cpp
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
void opt_permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
Error opt_permute_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                               Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptLayoutKernels[] = {
    make_kernel<&opt_permute_copy_out, &opt_permute_copy_prepare>("aten::permute_copy.out",
                                                                  kRealAndBoolTypes),
};

}  // namespace etr
