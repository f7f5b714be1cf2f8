// mixed_mm.out and mixed_linear.out: Float activations times Char weights
// with per-row (mixed_mm) or per-output-row-and-group (mixed_linear) Float
// scales, as ExecuTorch's reference kernels define them (there is no torch
// implementation of these two):
//   mixed_mm:     out[i][j] = sum_k x[i][k] * w[k][j] * s[k]          (w [n,p], s [n])
//   mixed_linear: out[i][j] = sum_g s[j][g] * sum_{k in g} x[i][k] * w[j][k]
//                 (w [p,n], s [p] or [p,G], groups of ceil(n / G) columns)
// Sums are accumulated in k order. Zero points are not supported (refused
// at load, as in ExecuTorch).
#include "kernels/portable/util/checks.h"
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/util/quant_util.h"

namespace etr {
namespace {

Error mixed_common_prepare(const char* op, const Tensor& input, const Tensor& weight,
                           const Tensor& scales, const Tensor* zero_points, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, ScalarType::Float));
  ETR_RETURN_IF_ERROR(check_dtype(op, "weight", weight, ScalarType::Char));
  ETR_RETURN_IF_ERROR(check_dtype(op, "weight_scales", scales, ScalarType::Float));
  ETR_CHECK_OR_FAIL(zero_points == nullptr, Error::NotSupported,
                    "%s: weight_zero_points are not supported (only None)", op);
  ETR_RETURN_IF_ERROR(check_rank(op, "input", input, 2));
  ETR_RETURN_IF_ERROR(check_rank(op, "weight", weight, 2));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, 2));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", input));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "weight", weight));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "weight_scales", scales));
  return check_default_layout(op, "out", out);
}

}  // namespace

Error mixed_mm_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                       const Tensor& weight_scales, const Tensor* weight_zero_points, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      mixed_common_prepare(op, input, weight, weight_scales, weight_zero_points, out));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, ScalarType::Float));
  return check_rank(op, "weight_scales", weight_scales, 1);
}

void mixed_mm_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                  const Tensor& weight_scales, const Tensor*, Tensor& out) {
  const char* op = ctx.op_name();
  const int64_t m = input.size(0);
  const int64_t n = input.size(1);
  const int64_t p = weight.size(1);
  ETR_KERNEL_CHECK(ctx, weight.size(0) == n && weight_scales.size(0) == n, Error::InvalidArgument,
                   "%s: input %s, weight %s and weight_scales %s do not fit", op,
                   ShapeText(input).c_str(), ShapeText(weight).c_str(),
                   ShapeText(weight_scales).c_str());
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input, &weight_scales, &out}));
  const int64_t sizes[2] = {m, p};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 2)));
  const float* x = input.const_data_ptr<float>();
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const float* s = weight_scales.const_data_ptr<float>();
  float* y = out.data_ptr<float>();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += x[i * n + k] * static_cast<float>(w[k * p + j]) * s[k];
      y[i * p + j] = sum;
    }
  }
}

Error mixed_linear_prepare(KernelPrepareContext& ctx, const Tensor& input, const Tensor& weight,
                           const Tensor& weight_scales, const Tensor* weight_zero_points,
                           std::optional<ScalarType> dtype, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      mixed_common_prepare(op, input, weight, weight_scales, weight_zero_points, out));
  const DtypeSet outs = DtypeSet::of(ScalarType::Float, ScalarType::Double);
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), outs));
  if (dtype.has_value()) ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, *dtype));
  return check_rank_in(op, "weight_scales", weight_scales, 1, 2);
}

void mixed_linear_out(KernelContext& ctx, const Tensor& input, const Tensor& weight,
                      const Tensor& weight_scales, const Tensor*, std::optional<ScalarType>,
                      Tensor& out) {
  const char* op = ctx.op_name();
  const int64_t m = input.size(0);
  const int64_t n = input.size(1);
  const int64_t p = weight.size(0);
  const int64_t groups = weight_scales.dim() == 2 ? weight_scales.size(1) : 1;
  ETR_KERNEL_CHECK(
      ctx, weight.size(1) == n && weight_scales.size(0) == p && groups > 0, Error::InvalidArgument,
      "%s: input %s, weight %s and weight_scales %s do not fit", op, ShapeText(input).c_str(),
      ShapeText(weight).c_str(), ShapeText(weight_scales).c_str());
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input, &weight_scales}));
  const int64_t sizes[2] = {m, p};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 2)));
  const int64_t g = (n + groups - 1) / groups;  // columns per group; the last may be short
  const float* x = input.const_data_ptr<float>();
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const float* s = weight_scales.const_data_ptr<float>();
  const bool known = dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* y = out.data_ptr<T>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        T sum = 0;
        for (int64_t k0 = 0; k0 < n; k0 += g) {
          T part = 0;
          const int64_t end = k0 + g < n ? k0 + g : n;
          for (int64_t k = k0; k < end; ++k)
            part += x[i * n + k] * static_cast<float>(w[j * n + k]);
          sum += part * s[j * groups + k0 / g];
        }
        y[i * p + j] = sum;
      }
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
