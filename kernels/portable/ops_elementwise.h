// Portable elementwise, reduction, normalization and creation kernels.
// Each function is the out variant of the ATen op named in its comment; the
// parameters follow the op's schema (native_functions.yaml) in order, with
// the out tensor(s) last. Registered in table_elementwise.inc.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- binary arithmetic (op_add.cpp, op_mul.cpp, op_div.cpp, op_binary_math.cpp)
// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
void add_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out);
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
void add_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out);
// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
void sub_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Scalar alpha,
             Tensor& out);
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
void sub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                    Tensor& out);
// aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
void rsub_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Scalar alpha,
                     Tensor& out);
// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
void mul_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void mul_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out)
void div_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void div_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
void div_out_mode(KernelContext& ctx, const Tensor& self, const Tensor& other,
                  std::optional<StringView> rounding_mode, Tensor& out);
// aten::floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out)
void floor_divide_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void remainder_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out);
// aten::remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void remainder_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void fmod_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void fmod_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
void pow_tensor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& exponent,
                           Tensor& out);
// aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
void pow_tensor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar exponent, Tensor& out);
// aten::pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
void pow_scalar_out(KernelContext& ctx, Scalar self, const Tensor& exponent, Tensor& out);
// aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out)
void maximum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out)
void minimum_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out)
void atan2_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);

// ---- unary floating math (op_unary_math.cpp): aten::<name>.out(Tensor self, *, Tensor(a!) out)
// Integer and bool inputs compute in Float; out must be floating.
void sqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void rsqrt_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void exp_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void expm1_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log1p_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log2_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void log10_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sin_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void cos_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void tan_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void tanh_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sigmoid_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void erf_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void reciprocal_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- other unary ops (op_unary.cpp): aten::<name>.out(Tensor self, *, Tensor(a!) out)
void neg_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void abs_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void ceil_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void floor_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void round_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void trunc_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void sign_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void logical_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void bitwise_not_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void isnan_out(KernelContext& ctx, const Tensor& self, Tensor& out);
void isinf_out(KernelContext& ctx, const Tensor& self, Tensor& out);

// ---- activations and clamping (op_activation.cpp)
// aten::relu.out(Tensor self, *, Tensor(a!) out)
void relu_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
void gelu_out(KernelContext& ctx, const Tensor& self, StringView approximate, Tensor& out);
// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
void hardtanh_out(KernelContext& ctx, const Tensor& self, Scalar min_val, Scalar max_val,
                  Tensor& out);
// aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
void leaky_relu_out(KernelContext& ctx, const Tensor& self, Scalar negative_slope, Tensor& out);
// aten::elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *,
//               Tensor(a!) out)
void elu_out(KernelContext& ctx, const Tensor& self, Scalar alpha, Scalar scale,
             Scalar input_scale, Tensor& out);
// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
void clamp_out(KernelContext& ctx, const Tensor& self, std::optional<Scalar> min,
               std::optional<Scalar> max, Tensor& out);
// aten::clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
void clamp_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor* min,
                      const Tensor* max, Tensor& out);

// ---- comparisons (op_comparison.cpp); out may have any dtype (normally Bool)
// aten::<eq|ne|lt|le|gt|ge>.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void eq_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void ne_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void lt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void le_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void gt_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void ge_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::<eq|ne|lt|le|gt|ge>.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void eq_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void ne_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void lt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void le_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void gt_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void ge_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);

// ---- logical, bitwise and selection (op_logical.cpp)
// aten::logical_<and|or|xor>.out(Tensor self, Tensor other, *, Tensor(a!) out)
void logical_and_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void logical_or_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
void logical_xor_out(KernelContext& ctx, const Tensor& self, const Tensor& other, Tensor& out);
// aten::bitwise_<and|or|xor>.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
void bitwise_and_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out);
void bitwise_or_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                           Tensor& out);
void bitwise_xor_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& other,
                            Tensor& out);
// aten::bitwise_<and|or|xor>.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
void bitwise_and_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void bitwise_or_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
void bitwise_xor_scalar_out(KernelContext& ctx, const Tensor& self, Scalar other, Tensor& out);
// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
void where_self_out(KernelContext& ctx, const Tensor& condition, const Tensor& self,
                    const Tensor& other, Tensor& out);
// aten::masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
void masked_fill_scalar_out(KernelContext& ctx, const Tensor& self, const Tensor& mask,
                            Scalar value, Tensor& out);

// ---- sum-like reductions (op_reduce.cpp)
// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                       Tensor(a!) out)
void sum_intlist_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, std::optional<ScalarType> dtype, Tensor& out);
// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                Tensor(a!) out)
void mean_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
              bool keepdim, std::optional<ScalarType> dtype, Tensor& out);
// aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
void mean_dtype_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                    Tensor& out);
// aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
void prod_out(KernelContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
              Tensor& out);
// aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
//                    Tensor(a!) out)
void prod_int_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                  std::optional<ScalarType> dtype, Tensor& out);
// aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//                          bool keepdim=False, Tensor(a!) out)
void var_correction_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                        std::optional<Scalar> correction, bool keepdim, Tensor& out);

// ---- min/max/any reductions (op_reduce_minmax.cpp)
// aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
void amax_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);
// aten::amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
void amin_out(KernelContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out);
// aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
void argmax_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out);
// aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
void argmin_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                Tensor& out);
// aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
//                   Tensor(b!) max_values)
void max_dim_max(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& max,
                 Tensor& max_indices);
// aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min,
//                   Tensor(b!) min_indices)
void min_dim_min(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& min,
                 Tensor& min_indices);
// aten::any.all_out(Tensor self, *, Tensor(a!) out)
void any_all_out(KernelContext& ctx, const Tensor& self, Tensor& out);
// aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
void any_dims_out(KernelContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                  bool keepdim, Tensor& out);
// aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
void any_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& out);

// ---- normalization (op_softmax.cpp, op_layer_norm.cpp)
// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
void softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                 Tensor& out);
// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
void log_softmax_out(KernelContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                     Tensor& out);
// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//     Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
void native_layer_norm_out(KernelContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
                           const Tensor* weight, const Tensor* bias, double eps, Tensor& out,
                           Tensor& mean_out, Tensor& rstd_out);

// ---- dtype conversion and creation (op_to_copy.cpp, op_full.cpp)
// aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//                    Tensor(a!) out)
void to_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                 std::optional<int64_t> memory_format, Tensor& out);
// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False,
//                                       int[]? dim_order=None, Tensor(a!) out)
void to_dim_order_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                           std::optional<IntArrayRef> dim_order, Tensor& out);
// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
void full_out(KernelContext& ctx, IntArrayRef size, Scalar fill_value, Tensor& out);
// aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
//                     Tensor(a!) out)
void full_like_out(KernelContext& ctx, const Tensor& self, Scalar fill_value,
                   std::optional<int64_t> memory_format, Tensor& out);
// aten::zeros.out(SymInt[] size, *, Tensor(a!) out)
void zeros_out(KernelContext& ctx, IntArrayRef size, Tensor& out);
// aten::ones.out(SymInt[] size, *, Tensor(a!) out)
void ones_out(KernelContext& ctx, IntArrayRef size, Tensor& out);
// aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out)
void scalar_tensor_out(KernelContext& ctx, Scalar s, Tensor& out);
// aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
void fill_scalar_out(KernelContext& ctx, const Tensor& self, Scalar value, Tensor& out);

}  // namespace etr
