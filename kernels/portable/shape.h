// Shape and layout copies: reshapes (view, squeeze, unsqueeze, expand),
// dim reorders (permute, transpose, t, flip, pixel_shuffle/unshuffle),
// tiling and padding (repeat, constant_pad_nd), joining and splitting (cat,
// stack, split, split_with_sizes, unbind). Each reads its input through
// strides and writes through out's, so any dim order works; element bytes
// are moved, so any dtype works (constant_pad_nd: real and bool; cat/stack
// convert inputs of another real or bool dtype). Checks run in run() (no
// prepare step); out is resized with resize_output. Parameters follow the
// ATen schema in order, outs last.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_view_copy.cpp
// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
void view_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out);
// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
void unsqueeze_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out);
// aten::squeeze_copy.out(Tensor self, *, Tensor(a!) out)
void squeeze_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
void squeeze_copy_dim_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out);
// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
void squeeze_copy_dims_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);

// ---- op_expand_copy.cpp
// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
void expand_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, bool implicit,
                     Tensor& out);

// ---- op_permute_copy.cpp
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
void permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
void transpose_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim0, int64_t dim1,
                            Tensor& out);
// aten::t_copy.out(Tensor self, *, Tensor(a!) out)
void t_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- op_flip.cpp
// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
void flip_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);

// ---- op_pixel_shuffle.cpp
// aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out)
void pixel_shuffle_out(KernelContext& ctx, const Tensor& self, int64_t upscale_factor, Tensor& out);
// aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out)
void pixel_unshuffle_out(KernelContext& ctx, const Tensor& self, int64_t downscale_factor,
                         Tensor& out);

// ---- op_repeat.cpp
// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
void repeat_out(KernelContext& ctx, const Tensor& self, IntArrayRef repeats, Tensor& out);

// ---- op_constant_pad_nd.cpp
// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
void constant_pad_nd_out(KernelContext& ctx, const Tensor& self, IntArrayRef pad, Scalar value,
                         Tensor& out);

// ---- op_cat_stack.cpp
// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
// aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void stack_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);

// ---- op_split_copy.cpp
// aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out)
void split_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t split_size, int64_t dim,
                           TensorList out);
// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//   Tensor(a!)[] out)
void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out);
// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out)
void unbind_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, TensorList out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kShapeKernels[] = {
    make_kernel<&view_copy_out>("aten::view_copy.out", kAllTypes),
    make_kernel<&unsqueeze_copy_out>("aten::unsqueeze_copy.out", kAllTypes),
    make_kernel<&squeeze_copy_out>("aten::squeeze_copy.out", kAllTypes),
    make_kernel<&squeeze_copy_dim_out>("aten::squeeze_copy.dim_out", kAllTypes),
    make_kernel<&squeeze_copy_dims_out>("aten::squeeze_copy.dims_out", kAllTypes),
    make_kernel<&expand_copy_out>("aten::expand_copy.out", kAllTypes),
    make_kernel<&permute_copy_out>("aten::permute_copy.out", kAllTypes),
    make_kernel<&transpose_copy_int_out>("aten::transpose_copy.int_out", kAllTypes),
    make_kernel<&t_copy_out>("aten::t_copy.out", kAllTypes),
    make_kernel<&flip_out>("aten::flip.out", kAllTypes),
    make_kernel<&pixel_shuffle_out>("aten::pixel_shuffle.out", kAllTypes),
    make_kernel<&pixel_unshuffle_out>("aten::pixel_unshuffle.out", kAllTypes),
    make_kernel<&repeat_out>("aten::repeat.out", kAllTypes),
    make_kernel<&constant_pad_nd_out>("aten::constant_pad_nd.out", kRealAndBoolTypes),
    make_kernel<&cat_out>("aten::cat.out", kAllTypes),
    make_kernel<&stack_out>("aten::stack.out", kAllTypes),
    make_kernel<&split_copy_tensor_out>("aten::split_copy.Tensor_out", kAllTypes),
    make_kernel<&split_with_sizes_copy_out>("aten::split_with_sizes_copy.out", kAllTypes),
    make_kernel<&unbind_copy_int_out>("aten::unbind_copy.int_out", kAllTypes),
};

}  // namespace etr
