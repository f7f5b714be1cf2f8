// Portable kernels for linear algebra, convolution, normalization, pooling
// and data movement (view/shape/copy ops). Each function implements the ATen
// out variant named in its comment; parameters follow the schema in order,
// outs last. Registered in table_layout.inc.
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// op_mm.cpp
// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
void bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out);
// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//   Tensor(a!) out)
void addmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
               Scalar beta, Scalar alpha, Tensor& out);
// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
void linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor* bias,
                Tensor& out);

// op_convolution.cpp
// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, *, Tensor(a!) out)
void convolution_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor* bias, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups, Tensor& out);

// op_batch_norm.cpp
// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0,
//   Tensor(b!) out1, Tensor(c!) out2)
void native_batch_norm_legit_no_training_out(KernelContext& ctx, const Tensor& input,
                                             const Tensor* weight, const Tensor* bias,
                                             const Tensor& running_mean, const Tensor& running_var,
                                             double momentum, double eps, Tensor& out0,
                                             Tensor& out1, Tensor& out2);
// aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps,
//   *, Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd)
void native_batch_norm_legit_out(KernelContext& ctx, const Tensor& input, const Tensor* weight,
                                 const Tensor* bias, Tensor& running_mean, Tensor& running_var,
                                 bool training, double momentum, double eps, Tensor& out,
                                 Tensor& save_mean, Tensor& save_invstd);
// aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//   bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
//   Tensor(c!) save_invstd)
void native_batch_norm_legit_no_stats_out(KernelContext& ctx, const Tensor& input,
                                          const Tensor* weight, const Tensor* bias, bool training,
                                          double momentum, double eps, Tensor& out,
                                          Tensor& save_mean, Tensor& save_invstd);

// op_pool.cpp
// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//   int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//   Tensor(b!) indices)
void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices);
// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//   Tensor(a!) out)
void avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out);
// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
void adaptive_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out);

// op_view.cpp
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
// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
void expand_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, bool implicit,
                     Tensor& out);
// aten::alias_copy.out / detach_copy.out / lift_fresh_copy.out(Tensor self, *, Tensor(a!) out)
void alias_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void detach_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void lift_fresh_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// op_permute.cpp
// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
void permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
void transpose_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim0, int64_t dim1,
                            Tensor& out);
// aten::t_copy.out(Tensor self, *, Tensor(a!) out)
void t_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
void flip_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out);
// aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out)
void pixel_shuffle_out(KernelContext& ctx, const Tensor& self, int64_t upscale_factor, Tensor& out);
// aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out)
void pixel_unshuffle_out(KernelContext& ctx, const Tensor& self, int64_t downscale_factor,
                         Tensor& out);

// op_slice.cpp
// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
//   SymInt step=1, *, Tensor(a!) out)
void slice_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                           std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                           Tensor& out);
// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
void select_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                         Tensor& out);
// aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
void narrow_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                     int64_t length, Tensor& out);
// aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out)
void split_copy_tensor_out(KernelContext& ctx, const Tensor& self, int64_t split_size, int64_t dim,
                           TensorList out);
// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//   Tensor(a!)[] out)
void split_with_sizes_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef split_sizes,
                               int64_t dim, TensorList out);
// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out)
void unbind_copy_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, TensorList out);

// op_cat.cpp
// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);
// aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void stack_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out);

// op_copy.cpp
// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
void clone_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> memory_format,
               Tensor& out);
// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False,
//   int[]? dim_order=None, Tensor(a!) out)
void clone_dim_order_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                         std::optional<IntArrayRef> dim_order, Tensor& out);
// aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
void copy_out(KernelContext& ctx, const Tensor& self, const Tensor& src, bool non_blocking,
              Tensor& out);
// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
void copy_inplace(KernelContext& ctx, Tensor& self, const Tensor& src, bool non_blocking);

// op_pad.cpp
// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
void constant_pad_nd_out(KernelContext& ctx, const Tensor& self, IntArrayRef pad, Scalar value,
                         Tensor& out);

// op_repeat.cpp
// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
void repeat_out(KernelContext& ctx, const Tensor& self, IntArrayRef repeats, Tensor& out);

// op_index.cpp
// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
void index_select_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                      Tensor& out);
// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
//   bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
void embedding_out(KernelContext& ctx, const Tensor& weight, const Tensor& indices,
                   int64_t padding_idx, bool scale_grad_by_freq, bool sparse, Tensor& out);
// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
void index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                      Tensor& out);

// op_arange.cpp
// aten::arange.out(Scalar end, *, Tensor(a!) out)
void arange_out(KernelContext& ctx, Scalar end, Tensor& out);
// aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
void arange_start_out(KernelContext& ctx, Scalar start, Scalar end, Scalar step, Tensor& out);

// op_dropout.cpp
// aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0,
//   Tensor(b!) out1)
void native_dropout_out(KernelContext& ctx, const Tensor& input, double p,
                        std::optional<bool> train, Tensor& out0, Tensor& out1);

}  // namespace etr
