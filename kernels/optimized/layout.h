// Optimized layout kernels. aten::permute_copy.out for default-layout
// tensors of 1-, 2-, 4- and 8-byte dtypes: dims of size 1 are dropped and
// dims that stay adjacent in the input are merged; what remains is either a
// batch of contiguous row copies or a cache-blocked 2-D transpose repeated
// over the other dims, split over the thread pool. aten::cat.out of
// default-layout inputs of the out's dtype: byte copies, the out's bytes
// split over the thread pool.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_permute_copy.cpp
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
void opt_permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
Error opt_permute_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                               Tensor& out);

// ---- op_cat.cpp
// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void opt_cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
Error opt_cat_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptLayoutKernels[] = {
    make_kernel<&opt_permute_copy_out, &opt_permute_copy_prepare>("aten::permute_copy.out",
                                                                  kRealAndBoolTypes),
    make_kernel<&opt_cat_out, &opt_cat_prepare>("aten::cat.out", kAllTypes),
};

}  // namespace etr
