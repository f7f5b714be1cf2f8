// Optimized layout kernels. aten::permute_copy.out for default-layout
// tensors of 1-, 2-, 4- and 8-byte dtypes: dims of size 1 are dropped and
// dims that stay adjacent in the input are merged; what remains is either a
// batch of contiguous row copies or a cache-blocked 2-D transpose repeated
// over the other dims, split over the thread pool. aten::cat.out of
// default-layout inputs of the out's dtype: byte copies, the out's bytes
// split over the thread pool.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_permute_copy.cpp
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
void opt_permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
Error opt_permute_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                               Tensor& out);
// The fused layout chains of fusion_rules.cpp, each one permute of the input
// into the last step's output (dims of size 1 and the clones' copies cost
// nothing); `scratch` is the first step's output, used only when the memory
// plan put the output over the input:
// etr::unsqueeze_permute_squeeze.fused(Tensor self, int dim, int[] dims,
//   int[] squeeze_dims, int[]? dim_order, Tensor(b!) scratch, *, Tensor(a!) out): unsqueeze_copy
//   -> permute_copy -> squeeze_copy.dims -> _clone_dim_order (the exporter's
//   split of a packed q/k/v projection).
void opt_unsqueeze_permute_squeeze_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                                       IntArrayRef dims, IntArrayRef squeeze_dims,
                                       std::optional<IntArrayRef> dim_order, Tensor& scratch,
                                       Tensor& out);
Error opt_unsqueeze_permute_squeeze_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                            int64_t dim, IntArrayRef dims, IntArrayRef squeeze_dims,
                                            std::optional<IntArrayRef> dim_order, Tensor& scratch,
                                            Tensor& out);
// etr::permute_clone_permute_permute.fused(Tensor self, int[] dims0,
//   int[]? dim_order, int[] dims1, int[] dims2, Tensor(b!) scratch, *, Tensor(a!) out):
//   permute_copy -> _clone_dim_order -> permute_copy -> permute_copy (the
//   attention heads merged back).
void opt_permute_clone_permute_permute_out(KernelContext& ctx, const Tensor& self,
                                           IntArrayRef dims0, std::optional<IntArrayRef> dim_order,
                                           IntArrayRef dims1, IntArrayRef dims2, Tensor& scratch,
                                           Tensor& out);
Error opt_permute_clone_permute_permute_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                                IntArrayRef dims0,
                                                std::optional<IntArrayRef> dim_order,
                                                IntArrayRef dims1, IntArrayRef dims2,
                                                Tensor& scratch, Tensor& out);

// ---- op_cat.cpp
// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void opt_cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
Error opt_cat_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim, Tensor& out);

// The family's table (see kernels/optimized/kernel_table.cpp).
inline constexpr KernelEntry kOptLayoutKernels[] = {
    make_kernel<&opt_permute_copy_out, &opt_permute_copy_prepare>("aten::permute_copy.out",
                                                                  kRealAndBoolTypes),
    make_kernel<&opt_unsqueeze_permute_squeeze_out, &opt_unsqueeze_permute_squeeze_prepare>(
        "etr::unsqueeze_permute_squeeze.fused", kRealAndBoolTypes),
    make_kernel<&opt_permute_clone_permute_permute_out, &opt_permute_clone_permute_permute_prepare>(
        "etr::permute_clone_permute_permute.fused", kRealAndBoolTypes),
    make_kernel<&opt_cat_out, &opt_cat_prepare>("aten::cat.out", kAllTypes),
};

}  // namespace etr
