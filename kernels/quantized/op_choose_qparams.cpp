// choose_qparams.Tensor_out and choose_qparams_per_token_asymmetric.out:
// a Float input's min and max -> scale (Double) and zero point (Long), in
// float32 arithmetic exactly as torch's determine_qparams (per tensor
// affine) and _choose_qparams_per_token_asymmetric_impl. NaN propagates
// through min/max as in torch.amin/amax.
#include <cmath>
#include <limits>

#include "kernels/portable/util/checks.h"
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/util/quant_util.h"
#include "kernels/quantized/util/quant_vec.h"

namespace etr {
namespace {

// torch.amin/amax over n floats (NaN wins): quant_vec.h's loop.
void min_max(const float* x, int64_t n, float* lo, float* hi) {
  qvec::min_max(x, static_cast<size_t>(n), lo, hi);
}

// torch.min(a, b) / torch.max(a, b) for floats: NaN propagates.
float nan_min(float a, float b) { return std::isnan(a) || a < b ? a : b; }
float nan_max(float a, float b) { return std::isnan(a) || a > b ? a : b; }

Error check_qparams_outs(const char* op, const Tensor& scale_out, const Tensor& zero_point_out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "scale_out", scale_out, ScalarType::Double));
  ETR_RETURN_IF_ERROR(check_dtype(op, "zero_point_out", zero_point_out, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "scale_out", scale_out));
  return check_default_layout(op, "zero_point_out", zero_point_out);
}

}  // namespace

Error choose_qparams_tensor_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                    int64_t quant_min, int64_t quant_max, double eps,
                                    ScalarType dtype, Tensor& scale_out, Tensor& zero_point_out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, ScalarType::Float));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", input));
  ETR_RETURN_IF_ERROR(check_quant_dtype(op, "dtype", dtype));
  ETR_RETURN_IF_ERROR(check_quant_range(op, quant_min, quant_max, dtype));
  // torch's validate_qmin_qmax.
  ETR_CHECK_OR_FAIL(quant_min <= 0 && 0 <= quant_max && quant_min < quant_max,
                    Error::InvalidArgument,
                    "%s: quant range [%lld, %lld] must include 0 and have quant_min < quant_max",
                    op, static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  ETR_CHECK_OR_FAIL(std::isfinite(eps) && eps >= 0, Error::InvalidArgument,
                    "%s: eps %g must be finite and >= 0", op, eps);
  ETR_RETURN_IF_ERROR(check_rank(op, "scale_out", scale_out, 1));
  ETR_RETURN_IF_ERROR(check_rank(op, "zero_point_out", zero_point_out, 1));
  return check_qparams_outs(op, scale_out, zero_point_out);
}

// scale = max((max(max_val, 0) - min(min_val, 0)) / float(qmax - qmin), eps)
// zero_point = clamp(qmin - int32(round(min(min_val, 0) / scale)), qmin, qmax)
void choose_qparams_tensor_out(KernelContext& ctx, const Tensor& input, int64_t quant_min,
                               int64_t quant_max, double eps, ScalarType, Tensor& scale_out,
                               Tensor& zero_point_out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx, input.numel() > 0, Error::InvalidArgument,
                   "%s: input is empty (min and max are undefined)", op);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input}));
  ETR_KERNEL_TRY(ctx, check_qparams_outs(op, scale_out, zero_point_out));
  const int64_t one = 1;
  ETR_KERNEL_TRY(ctx, resize_output(op, scale_out, Span<const int64_t>(&one, 1)));
  ETR_KERNEL_TRY(ctx, resize_output(op, zero_point_out, Span<const int64_t>(&one, 1)));
  float lo = 0;
  float hi = 0;
  min_max(input.const_data_ptr<float>(), input.numel(), &lo, &hi);
  const float min_neg = nan_min(lo, 0.0f);
  const float max_pos = nan_max(hi, 0.0f);
  float scale = (max_pos - min_neg) / static_cast<float>(quant_max - quant_min);
  scale = nan_max(scale, internal::double_to_float(eps));
  const int32_t r = convert<int32_t>(std::nearbyint(min_neg / scale));
  // int32 arithmetic as torch (wraps for the NaN/inf result INT32_MIN).
  const int64_t zp = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(quant_min)) -
                                          static_cast<uint32_t>(r));
  scale_out.data_ptr<double>()[0] = scale;
  zero_point_out.data_ptr<int64_t>()[0] =
      zp < quant_min ? quant_min : (zp > quant_max ? quant_max : zp);
}

Error choose_qparams_per_token_asymmetric_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                                  ScalarType dtype, Tensor& scale_out,
                                                  Tensor& zero_point_out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype(op, "input", input, ScalarType::Float));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", input));
  ETR_CHECK_OR_FAIL(input.dim() > 0, Error::InvalidArgument, "%s: input must have rank >= 1", op);
  ETR_RETURN_IF_ERROR(check_quant_dtype(op, "dtype", dtype));
  ETR_RETURN_IF_ERROR(check_rank(op, "scale_out", scale_out, input.dim()));
  ETR_RETURN_IF_ERROR(check_rank(op, "zero_point_out", zero_point_out, input.dim()));
  return check_qparams_outs(op, scale_out, zero_point_out);
}

// Per row of the last dim, with qmin = -128, qmax = 127 and eps = float32 eps
// (torch fixes these whatever `dtype` says).
void choose_qparams_per_token_asymmetric_out(KernelContext& ctx, const Tensor& input, ScalarType,
                                             Tensor& scale_out, Tensor& zero_point_out) {
  const char* op = ctx.op_name();
  const size_t rank = input.dim();
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < rank; ++k) sizes[k] = input.size(k);
  sizes[rank - 1] = 1;
  const int64_t row = input.size(rank - 1);
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, ScalarType::Float, {&input}));
  ETR_KERNEL_TRY(ctx, check_qparams_outs(op, scale_out, zero_point_out));
  ETR_KERNEL_TRY(ctx, resize_output(op, scale_out, Span<const int64_t>(sizes, rank)));
  ETR_KERNEL_TRY(ctx, resize_output(op, zero_point_out, Span<const int64_t>(sizes, rank)));
  const int64_t tokens = scale_out.numel();
  ETR_KERNEL_CHECK(ctx, tokens == 0 || row > 0, Error::InvalidArgument,
                   "%s: rows of the last dim are empty (min and max are undefined)", op);
  const float* x = input.const_data_ptr<float>();
  double* scales = scale_out.data_ptr<double>();
  int64_t* zps = zero_point_out.data_ptr<int64_t>();
  const float qmin = -128.0f;
  const float qmax = 127.0f;
  const float eps = std::numeric_limits<float>::epsilon();
  for (int64_t t = 0; t < tokens; ++t) {
    float lo = 0;
    float hi = 0;
    min_max(x + t * row, row, &lo, &hi);
    const float min_neg = nan_min(lo, 0.0f);
    const float max_pos = nan_max(hi, 0.0f);
    float scale = (max_pos - min_neg) / (qmax - qmin);
    scale = clamp_keep_nan(scale, eps, std::numeric_limits<float>::infinity());
    const float dmin = min_neg / scale;
    const float dmax = max_pos / scale;
    const float zp = (qmin + dmin) + (qmax + dmax) > 0 ? qmin - dmin : qmax - dmax;
    scales[t] = scale;
    zps[t] = convert<int64_t>(std::nearbyint(clamp_keep_nan(zp, qmin, qmax)));
  }
}

}  // namespace etr
