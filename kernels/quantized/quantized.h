// The quantized_decomposed kernels: declarations and the library's table.
// Parameters follow the schemas of ExecuTorch's kernels/quantized/quantized.yaml
// in order, outs last; numerics follow PyTorch's reference implementations
// (torch/ao/quantization/fx/_decomposed.py and ExecuTorch's
// exir/passes/_quant_patterns_and_replacements.py), element for element:
// round half to even, clamp to [quant_min, quant_max], then the cast.
// Prepare steps check dtypes, ranks, layouts and every constant argument
// (scale, zero point, quant range); run() checks what lives in tensor data
// (scale and zero-point tensors, indices) and resizes the outputs.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_quantize.cpp: float -> integer (out has dtype `dtype`: Byte, Char, Short or Int).
// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_tensor_out(KernelContext& ctx, const Tensor& input, double scale,
                             int64_t zero_point, int64_t quant_min, int64_t quant_max,
                             ScalarType dtype, Tensor& out);
Error quantize_per_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input, double scale,
                                  int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                  ScalarType dtype, Tensor& out);
// quantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point,
//   int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_tensor_tensor_out(KernelContext& ctx, const Tensor& input, const Tensor& scale,
                                    const Tensor& zero_point, int64_t quant_min, int64_t quant_max,
                                    ScalarType dtype, Tensor& out);
Error quantize_per_tensor_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                         const Tensor& scale, const Tensor& zero_point,
                                         int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                         Tensor& out);
// quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
//   int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_channel_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t axis, int64_t quant_min,
                              int64_t quant_max, ScalarType dtype, Tensor& out);
Error quantize_per_channel_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                   const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                   int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                   Tensor& out);
// quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_token_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                            const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                            ScalarType dtype, Tensor& out);
Error quantize_per_token_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t quant_min,
                                 int64_t quant_max, ScalarType dtype, Tensor& out);

// ---- op_dequantize.cpp: integer (dtype `dtype`) -> Float or Double.
// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
void dequantize_per_tensor_out(KernelContext& ctx, const Tensor& input, double scale,
                               int64_t zero_point, int64_t quant_min, int64_t quant_max,
                               ScalarType dtype, std::optional<ScalarType> out_dtype, Tensor& out);
Error dequantize_per_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input, double scale,
                                    int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                    ScalarType dtype, std::optional<ScalarType> out_dtype,
                                    Tensor& out);
// dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point,
//   int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
void dequantize_per_tensor_tensor_out(KernelContext& ctx, const Tensor& input, const Tensor& scale,
                                      const Tensor& zero_point, int64_t quant_min,
                                      int64_t quant_max, ScalarType dtype,
                                      std::optional<ScalarType> out_dtype, Tensor& out);
Error dequantize_per_tensor_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                           const Tensor& scale, const Tensor& zero_point,
                                           int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                           std::optional<ScalarType> out_dtype, Tensor& out);
// dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis,
//   int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
void dequantize_per_channel_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                                const Tensor* zero_points, int64_t axis, int64_t quant_min,
                                int64_t quant_max, ScalarType dtype,
                                std::optional<ScalarType> out_dtype, Tensor& out);
Error dequantize_per_channel_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                     const Tensor& scales, const Tensor* zero_points, int64_t axis,
                                     int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                     std::optional<ScalarType> out_dtype, Tensor& out);
// dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//   int quant_max, ScalarType dtype, ScalarType output_dtype, *, Tensor(a!) out)
void dequantize_per_token_out(KernelContext& ctx, const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                              ScalarType dtype, ScalarType output_dtype, Tensor& out);
Error dequantize_per_token_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                   const Tensor& scales, const Tensor& zero_points,
                                   int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                   ScalarType output_dtype, Tensor& out);

// ---- op_choose_qparams.cpp: scale (Double) and zero point (Long) from a Float input.
// choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps,
//   ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)
void choose_qparams_tensor_out(KernelContext& ctx, const Tensor& input, int64_t quant_min,
                               int64_t quant_max, double eps, ScalarType dtype, Tensor& scale_out,
                               Tensor& zero_point_out);
Error choose_qparams_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                    int64_t quant_min, int64_t quant_max, double eps,
                                    ScalarType dtype, Tensor& scale_out, Tensor& zero_point_out);
// choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *,
//   Tensor(a!) scale_out, Tensor(b!) zero_point_out)
void choose_qparams_per_token_asymmetric_out(KernelContext& ctx, const Tensor& input,
                                             ScalarType dtype, Tensor& scale_out,
                                             Tensor& zero_point_out);
Error choose_qparams_per_token_asymmetric_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                                  ScalarType dtype, Tensor& scale_out,
                                                  Tensor& zero_point_out);

// ---- op_embedding_quantized.cpp: rows of a 2-D weight of `Bits`-bit values
// (8: Byte or Char; 2 and 4: packed in Byte, low bits first for 2, high
// nibble first for 4), dequantized per row or per row group.
// embedding_{byte,2bit,4bit}.out(Tensor weight, Tensor weight_scales,
//   Tensor? weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices,
//   *, Tensor(a!) out)
template <int Bits>
void embedding_xbit_out(KernelContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                        const Tensor* weight_zero_points, int64_t weight_quant_min,
                        int64_t weight_quant_max, const Tensor& indices, Tensor& out);
template <int Bits>
Error embedding_xbit_prepare(KernelPrepareContext& ctx, const Tensor& weight,
                             const Tensor& weight_scales, const Tensor* weight_zero_points,
                             int64_t weight_quant_min, int64_t weight_quant_max,
                             const Tensor& indices, Tensor& out);
// embedding_{byte,2bit,4bit}.dtype_out(..., Tensor indices, ScalarType? dtype=None, *,
//   Tensor(a!) out)
template <int Bits>
void embedding_xbit_dtype_out(KernelContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                              const Tensor* weight_zero_points, int64_t weight_quant_min,
                              int64_t weight_quant_max, const Tensor& indices,
                              std::optional<ScalarType> dtype, Tensor& out);
template <int Bits>
Error embedding_xbit_dtype_prepare(KernelPrepareContext& ctx, const Tensor& weight,
                                   const Tensor& weight_scales, const Tensor* weight_zero_points,
                                   int64_t weight_quant_min, int64_t weight_quant_max,
                                   const Tensor& indices, std::optional<ScalarType> dtype,
                                   Tensor& out);

// ---- op_mixed_mm.cpp: Float activations times Char weights scaled per row
// (mixed_mm: weight [n,p], scales [n]) or per output row and group
// (mixed_linear: weight [p,n], scales [p] or [p,groups]); no zero points.
// mixed_mm.out(Tensor input, Tensor weight, Tensor weight_scales,
//   Tensor? weight_zero_points, *, Tensor(a!) out)
void mixed_mm_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                  const Tensor& weight_scales, const Tensor* weight_zero_points, Tensor& out);
Error mixed_mm_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                       const Tensor& weight_scales, const Tensor* weight_zero_points, Tensor& out);
// mixed_linear.out(Tensor input, Tensor weight, Tensor weight_scales,
//   Tensor? weight_zero_points, ScalarType? dtype=None, *, Tensor(a!) out)
void mixed_linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                      const Tensor& weight_scales, const Tensor* weight_zero_points,
                      std::optional<ScalarType> dtype, Tensor& out);
Error mixed_linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                           const Tensor& weight_scales, const Tensor* weight_zero_points,
                           std::optional<ScalarType> dtype, Tensor& out);

// ---- op_quantized_add.cpp: dequantize a and b, add in float, quantize;
// a, b and out have the same shape and dtype (Byte or Char).
// add.out(Tensor a, float a_scale, int a_zero_point, int a_quant_min, int a_quant_max,
//   Tensor b, float b_scale, int b_zero_point, int b_quant_min, int b_quant_max,
//   float out_scale, int out_zero_point, int out_quant_min, int out_quant_max, *, Tensor(a!) out)
void quantized_add_out(KernelContext& ctx, const Tensor& a, double a_scale, int64_t a_zero_point,
                       int64_t a_quant_min, int64_t a_quant_max, const Tensor& b, double b_scale,
                       int64_t b_zero_point, int64_t b_quant_min, int64_t b_quant_max,
                       double out_scale, int64_t out_zero_point, int64_t out_quant_min,
                       int64_t out_quant_max, Tensor& out);
Error quantized_add_prepare(KernelPrepareContext& ctx, const Tensor& a, double a_scale,
                            int64_t a_zero_point, int64_t a_quant_min, int64_t a_quant_max,
                            const Tensor& b, double b_scale, int64_t b_zero_point,
                            int64_t b_quant_min, int64_t b_quant_max, double out_scale,
                            int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max,
                            Tensor& out);

// The library's table (see kernel_table.cpp). Tensor arguments may be any
// real dtype here; each prepare step checks its arguments' dtypes exactly.
inline constexpr KernelEntry kQuantizedKernels[] = {
    make_kernel<&quantize_per_tensor_out, &quantize_per_tensor_prepare>(
        "quantized_decomposed::quantize_per_tensor.out", kRealTypes),
    make_kernel<&quantize_per_tensor_tensor_out, &quantize_per_tensor_tensor_prepare>(
        "quantized_decomposed::quantize_per_tensor.Tensor_out", kRealTypes),
    make_kernel<&quantize_per_channel_out, &quantize_per_channel_prepare>(
        "quantized_decomposed::quantize_per_channel.out", kRealTypes),
    make_kernel<&quantize_per_token_out, &quantize_per_token_prepare>(
        "quantized_decomposed::quantize_per_token.out", kRealTypes),
    make_kernel<&dequantize_per_tensor_out, &dequantize_per_tensor_prepare>(
        "quantized_decomposed::dequantize_per_tensor.out", kRealTypes),
    make_kernel<&dequantize_per_tensor_tensor_out, &dequantize_per_tensor_tensor_prepare>(
        "quantized_decomposed::dequantize_per_tensor.Tensor_out", kRealTypes),
    make_kernel<&dequantize_per_channel_out, &dequantize_per_channel_prepare>(
        "quantized_decomposed::dequantize_per_channel.out", kRealTypes),
    make_kernel<&dequantize_per_token_out, &dequantize_per_token_prepare>(
        "quantized_decomposed::dequantize_per_token.out", kRealTypes),
    make_kernel<&choose_qparams_tensor_out, &choose_qparams_tensor_prepare>(
        "quantized_decomposed::choose_qparams.Tensor_out", kRealTypes),
    make_kernel<&choose_qparams_per_token_asymmetric_out,
                &choose_qparams_per_token_asymmetric_prepare>(
        "quantized_decomposed::choose_qparams_per_token_asymmetric.out", kRealTypes),
    make_kernel<&embedding_xbit_out<8>, &embedding_xbit_prepare<8>>(
        "quantized_decomposed::embedding_byte.out", kRealTypes),
    make_kernel<&embedding_xbit_dtype_out<8>, &embedding_xbit_dtype_prepare<8>>(
        "quantized_decomposed::embedding_byte.dtype_out", kRealTypes),
    make_kernel<&embedding_xbit_out<2>, &embedding_xbit_prepare<2>>(
        "quantized_decomposed::embedding_2bit.out", kRealTypes),
    make_kernel<&embedding_xbit_dtype_out<2>, &embedding_xbit_dtype_prepare<2>>(
        "quantized_decomposed::embedding_2bit.dtype_out", kRealTypes),
    make_kernel<&embedding_xbit_out<4>, &embedding_xbit_prepare<4>>(
        "quantized_decomposed::embedding_4bit.out", kRealTypes),
    make_kernel<&embedding_xbit_dtype_out<4>, &embedding_xbit_dtype_prepare<4>>(
        "quantized_decomposed::embedding_4bit.dtype_out", kRealTypes),
    make_kernel<&mixed_mm_out, &mixed_mm_prepare>("quantized_decomposed::mixed_mm.out", kRealTypes),
    make_kernel<&mixed_linear_out, &mixed_linear_prepare>("quantized_decomposed::mixed_linear.out",
                                                          kRealTypes),
    make_kernel<&quantized_add_out, &quantized_add_prepare>("quantized_decomposed::add.out",
                                                            kRealTypes),
};

}  // namespace etr
