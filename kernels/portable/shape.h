// Shape and layout copies: reshapes (view, squeeze, unsqueeze, expand),
// dim reorders (permute, transpose, t, flip, pixel_shuffle/unshuffle),
// tiling and padding (repeat, constant_pad_nd), joining and splitting (cat,
// stack, split, split_with_sizes, unbind). Each reads its input through
// strides and writes through out's, so any dim order works; element bytes
// are moved, so any dtype works (constant_pad_nd: real and bool; cat/stack
// convert inputs of another real or bool dtype). Prepare steps check
// dtypes, ranks, dims and the constant arguments (factors, split_size, list
// lengths); size lists (view, expand, repeat, pad, split sizes) may hold
// symbolic sizes, so only their length is checked at load and their values
// in run(), which also resizes out with resize_output. Parameters follow the
// ATen schema in order, outs last.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_view_copy.cpp
// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
void view_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out);
Error view_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef size,
                        Tensor& out);
// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
void unsqueeze_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out);
Error unsqueeze_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                             Tensor& out);
// aten::squeeze_copy.out(Tensor self, *, Tensor(a!) out)
void squeeze_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error squeeze_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);
// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
void squeeze_copy_dim_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out);
Error squeeze_copy_dim_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                               Tensor& out);
// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
void squeeze_copy_dims_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
Error squeeze_copy_dims_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                                Tensor& out);

// ---- op_expand_copy.cpp
// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
void expand_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, bool implicit,
                     Tensor& out);
Error expand_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef size,
                          bool implicit, Tensor& out);

// ---- op_permute_copy.cpp
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
void permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
Error permute_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                           Tensor& out);
// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
void transpose_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim0, int64_t dim1,
                            Tensor& out);
Error transpose_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim0,
                             int64_t dim1, Tensor& out);
// aten::t_copy.out(Tensor self, *, Tensor(a!) out)
void t_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error t_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// ---- op_flip.cpp
// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
void flip_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
Error flip_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);

// ---- op_pixel_shuffle.cpp
// aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out)
void pixel_shuffle_out(KernelContext& ctx, const Tensor& self, int64_t upscale_factor, Tensor& out);
Error pixel_shuffle_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t upscale_factor,
                            Tensor& out);
// aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out)
void pixel_unshuffle_out(KernelContext& ctx, const Tensor& self, int64_t downscale_factor,
                         Tensor& out);
Error pixel_unshuffle_prepare(KernelPrepareContext& ctx, const Tensor& self,
                              int64_t downscale_factor, Tensor& out);

// ---- op_repeat.cpp
// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
void repeat_out(KernelContext& ctx, const Tensor& self, IntArrayRef repeats, Tensor& out);
Error repeat_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef repeats,
                     Tensor& out);

// ---- op_constant_pad_nd.cpp
// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
void constant_pad_nd_out(KernelContext& ctx, const Tensor& self, IntArrayRef pad, Scalar value,
                         Tensor& out);
Error constant_pad_nd_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef pad,
                              Scalar value, Tensor& out);

// ---- op_reflection_pad.cpp: padding is [left, right(, top, bottom(, front, back))];
// reflection pads must be smaller than their dim. Real dtypes.
// aten::reflection_pad{1,2,3}d.out(Tensor self, SymInt[2|4|6] padding, *, Tensor(a!) out)
// aten::replication_pad{1,2,3}d.out(Tensor self, SymInt[2|4|6] padding, *, Tensor(a!) out)
void reflection_pad1d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding, Tensor& out);
void reflection_pad2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding, Tensor& out);
void reflection_pad3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding, Tensor& out);
void replication_pad1d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                           Tensor& out);
void replication_pad2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                           Tensor& out);
void replication_pad3d_out(KernelContext& ctx, const Tensor& self, IntArrayRef padding,
                           Tensor& out);
// The prepare steps check ranks and the padding's length (shared by both modes).
Error reflection_pad1d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef padding,
                               Tensor& out);
Error reflection_pad2d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef padding,
                               Tensor& out);
Error reflection_pad3d_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef padding,
                               Tensor& out);

// ---- op_tril.cpp: zeroes the elements above `diagonal` of the last two
// dims (self has at least 2).
// aten::tril.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out)
void tril_out(KernelContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out);
Error tril_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out);

// ---- op_roll.cpp: one shift per dim, or one shift and no dims (flattened).
// aten::roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
void roll_out(KernelContext& ctx, const Tensor& self, IntArrayRef shifts, IntArrayRef dims,
              Tensor& out);
Error roll_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef shifts,
                   IntArrayRef dims, Tensor& out);

// ---- op_cat_stack.cpp
// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
Error cat_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
// aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void stack_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
Error stack_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim, Tensor& out);

// ---- op_split_copy.cpp
// aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out)
void split_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t split_size, int64_t dim,
                           TensorList out);
Error split_copy_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t split_size,
                                int64_t dim, TensorList out);
// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//   Tensor(a!)[] out)
void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out);
Error split_with_sizes_copy_prepare(KernelPrepareContext& ctx, const Tensor& self,
                                    IntArrayRef split_sizes, int64_t dim, TensorList out);
// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out)
void unbind_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, TensorList out);
Error unbind_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          TensorList out);

// ---- op_strided_view_copy.cpp: copies of strided views of self (any dtype).
// aten::diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out)
void diagonal_copy_out(KernelContext& ctx, const Tensor& self, int64_t offset, int64_t dim1,
                       int64_t dim2, Tensor& out);
Error diagonal_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t offset,
                            int64_t dim1, int64_t dim2, Tensor& out);
// aten::as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride,
//   SymInt? storage_offset=None, *, Tensor(a!) out); self's elements are the storage.
void as_strided_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size,
                         IntArrayRef stride, std::optional<int64_t> storage_offset, Tensor& out);
Error as_strided_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef size,
                              IntArrayRef stride, std::optional<int64_t> storage_offset,
                              Tensor& out);
// aten::unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out)
void unfold_copy_out(KernelContext& ctx, const Tensor& self, int64_t dimension, int64_t size,
                     int64_t step, Tensor& out);
Error unfold_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dimension,
                          int64_t size, int64_t step, Tensor& out);

// ---- op_complex.cpp
// aten::complex.out(Tensor real, Tensor imag, *, Tensor(a!) out): Half -> ComplexHalf,
// Float -> ComplexFloat, Double -> ComplexDouble; real and imag broadcast together.
void complex_out(KernelContext& ctx, const Tensor& real, const Tensor& imag, Tensor& out);
Error complex_prepare(KernelPrepareContext& ctx, const Tensor& real, const Tensor& imag,
                      Tensor& out);
// aten::view_as_real_copy.out(Tensor self, *, Tensor(a!) out): ComplexHalf -> Half,
// ComplexFloat -> Float, ComplexDouble -> Double, with a trailing dim of 2 (real, imaginary).
void view_as_real_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
Error view_as_real_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out);

// The family's table (see kernel_table.cpp).
inline constexpr KernelEntry kShapeKernels[] = {
    make_kernel<&view_copy_out, &view_copy_prepare>("aten::view_copy.out", kAllTypes),
    make_kernel<&unsqueeze_copy_out, &unsqueeze_copy_prepare>("aten::unsqueeze_copy.out",
                                                              kAllTypes),
    make_kernel<&squeeze_copy_out, &squeeze_copy_prepare>("aten::squeeze_copy.out", kAllTypes),
    make_kernel<&squeeze_copy_dim_out, &squeeze_copy_dim_prepare>("aten::squeeze_copy.dim_out",
                                                                  kAllTypes),
    make_kernel<&squeeze_copy_dims_out, &squeeze_copy_dims_prepare>("aten::squeeze_copy.dims_out",
                                                                    kAllTypes),
    make_kernel<&expand_copy_out, &expand_copy_prepare>("aten::expand_copy.out", kAllTypes),
    make_kernel<&permute_copy_out, &permute_copy_prepare>("aten::permute_copy.out", kAllTypes),
    make_kernel<&transpose_copy_int_out, &transpose_copy_prepare>("aten::transpose_copy.int_out",
                                                                  kAllTypes),
    make_kernel<&t_copy_out, &t_copy_prepare>("aten::t_copy.out", kAllTypes),
    make_kernel<&flip_out, &flip_prepare>("aten::flip.out", kAllTypes),
    make_kernel<&pixel_shuffle_out, &pixel_shuffle_prepare>("aten::pixel_shuffle.out", kAllTypes),
    make_kernel<&pixel_unshuffle_out, &pixel_unshuffle_prepare>("aten::pixel_unshuffle.out",
                                                                kAllTypes),
    make_kernel<&repeat_out, &repeat_prepare>("aten::repeat.out", kAllTypes),
    make_kernel<&tril_out, &tril_prepare>("aten::tril.out", kAllTypes),
    make_kernel<&roll_out, &roll_prepare>("aten::roll.out", kAllTypes),
    make_kernel<&constant_pad_nd_out, &constant_pad_nd_prepare>("aten::constant_pad_nd.out",
                                                                kRealAndBoolTypes),
    make_kernel<&reflection_pad1d_out, &reflection_pad1d_prepare>("aten::reflection_pad1d.out",
                                                                  kRealTypes),
    make_kernel<&reflection_pad2d_out, &reflection_pad2d_prepare>("aten::reflection_pad2d.out",
                                                                  kRealTypes),
    make_kernel<&reflection_pad3d_out, &reflection_pad3d_prepare>("aten::reflection_pad3d.out",
                                                                  kRealTypes),
    make_kernel<&replication_pad1d_out, &reflection_pad1d_prepare>("aten::replication_pad1d.out",
                                                                   kRealTypes),
    make_kernel<&replication_pad2d_out, &reflection_pad2d_prepare>("aten::replication_pad2d.out",
                                                                   kRealTypes),
    make_kernel<&replication_pad3d_out, &reflection_pad3d_prepare>("aten::replication_pad3d.out",
                                                                   kRealTypes),
    make_kernel<&cat_out, &cat_prepare>("aten::cat.out", kAllTypes),
    make_kernel<&stack_out, &stack_prepare>("aten::stack.out", kAllTypes),
    make_kernel<&split_copy_tensor_out, &split_copy_tensor_prepare>("aten::split_copy.Tensor_out",
                                                                    kAllTypes),
    make_kernel<&split_with_sizes_copy_out, &split_with_sizes_copy_prepare>(
        "aten::split_with_sizes_copy.out", kAllTypes),
    make_kernel<&unbind_copy_int_out, &unbind_copy_prepare>("aten::unbind_copy.int_out", kAllTypes),
    make_kernel<&diagonal_copy_out, &diagonal_copy_prepare>("aten::diagonal_copy.out", kAllTypes),
    make_kernel<&as_strided_copy_out, &as_strided_copy_prepare>("aten::as_strided_copy.out",
                                                                kAllTypes),
    make_kernel<&unfold_copy_out, &unfold_copy_prepare>("aten::unfold_copy.out", kAllTypes),
    make_kernel<&view_as_real_copy_out, &view_as_real_copy_prepare>(
        "aten::view_as_real_copy.out",
        DtypeSet::of(ScalarType::ComplexHalf, ScalarType::ComplexFloat, ScalarType::ComplexDouble,
                     ScalarType::Half, ScalarType::Float, ScalarType::Double)),
    make_kernel<&complex_out, &complex_prepare>(
        "aten::complex.out",
        DtypeSet::of(ScalarType::Half, ScalarType::Float, ScalarType::Double,
                     ScalarType::ComplexHalf, ScalarType::ComplexFloat, ScalarType::ComplexDouble)),
};

}  // namespace etr
