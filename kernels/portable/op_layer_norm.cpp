// aten::native_layer_norm.out: normalizes over the trailing
// `normalized_shape` dims; also returns the per-row mean and rstd with shape
// [*leading dims, 1, ..., 1]. Float and double, default dim order.
#include <cmath>

#include "kernels/portable/normalization.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/shape_rules.h"

namespace etr {
namespace {

// Same dtype as the input, default dim order.
Error check_operand(const char* op, const char* what, const Tensor& t, ScalarType dtype) {
  ETR_RETURN_IF_ERROR(check_dtype(op, what, t, dtype));
  return check_default_layout(op, what, t);
}

// An optional weight / bias: an operand of rank len(normalized_shape).
Error check_affine(const char* op, const char* what, const Tensor* t, size_t k, ScalarType dtype) {
  if (t == nullptr) return Error::Ok;
  ETR_RETURN_IF_ERROR(check_operand(op, what, *t, dtype));
  return check_rank(op, what, *t, k);
}

template <typename T>
void layer_norm_rows(const Tensor& input, const Tensor* weight, const Tensor* bias, double eps,
                     int64_t rows, int64_t cols, Tensor& out, Tensor& mean, Tensor& rstd) {
  const T* x = input.const_data_ptr<T>();
  const T* w = weight != nullptr ? weight->const_data_ptr<T>() : nullptr;
  const T* b = bias != nullptr ? bias->const_data_ptr<T>() : nullptr;
  T* y = out.data_ptr<T>();
  const double n = static_cast<double>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * cols;
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += static_cast<double>(row[c]);
    const double mu = sum / n;
    double squares = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      const double d = static_cast<double>(row[c]) - mu;
      squares += d * d;
    }
    const double inv_std = 1.0 / std::sqrt(squares / n + eps);
    for (int64_t c = 0; c < cols; ++c) {
      double v = (static_cast<double>(row[c]) - mu) * inv_std;
      if (w != nullptr) v *= static_cast<double>(w[c]);
      if (b != nullptr) v += static_cast<double>(b[c]);
      y[r * cols + c] = convert<T>(v);
    }
    mean.data_ptr<T>()[r] = convert<T>(mu);
    rstd.data_ptr<T>()[r] = convert<T>(inv_std);
  }
}

}  // namespace

Error native_layer_norm_prepare(KernelPrepareContext& ctx, const Tensor& input,
                                IntArrayRef normalized_shape, const Tensor* weight,
                                const Tensor* bias, double /*eps*/, Tensor& out, Tensor& mean_out,
                                Tensor& rstd_out) {
  const char* op = ctx.op_name();
  const ScalarType dtype = input.dtype();
  const size_t k = normalized_shape.size();
  ETR_CHECK_OR_FAIL(k >= 1 && k <= input.dim(), Error::InvalidArgument,
                    "%s: normalized_shape %s needs 1 to %zu dims", op,
                    ShapeText(normalized_shape).c_str(), input.dim());
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "input", dtype, kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_operand(op, "input", input, dtype));
  ETR_RETURN_IF_ERROR(check_affine(op, "weight", weight, k, dtype));
  ETR_RETURN_IF_ERROR(check_affine(op, "bias", bias, k, dtype));
  ETR_RETURN_IF_ERROR(check_operand(op, "out", out, dtype));
  ETR_RETURN_IF_ERROR(check_operand(op, "mean", mean_out, dtype));
  return check_operand(op, "rstd", rstd_out, dtype);
}

void native_layer_norm_out(KernelContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
                           const Tensor* weight, const Tensor* bias, double eps, Tensor& out,
                           Tensor& mean_out, Tensor& rstd_out) {
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), input.dtype(),
                                           {weight, bias, &out, &mean_out, &rstd_out}));
  int64_t rows = 0;
  int64_t cols = 0;
  ETR_KERNEL_TRY(ctx, layer_norm_resize_outputs(ctx.op_name(), input, normalized_shape, weight,
                                                bias, out, mean_out, rstd_out, &rows, &cols));
  const bool known = dispatch_floating(input.dtype(), [&](auto tag) {
    layer_norm_rows<typename decltype(tag)::type>(input, weight, bias, eps, rows, cols, out,
                                                  mean_out, rstd_out);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), known, input.dtype()));
}

}  // namespace etr
