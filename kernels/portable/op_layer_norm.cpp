// aten::native_layer_norm.out: normalizes over the trailing
// `normalized_shape` dims; also returns the per-row mean and rstd with shape
// [*leading dims, 1, ..., 1]. Float and double, contiguous tensors only.
#include <cmath>

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

constexpr const char* kOp = "aten::native_layer_norm.out";

Error check_tensor(const char* what, const Tensor& t, ScalarType dtype) {
  if (t.dtype() != dtype) {
    ETR_FAIL(Error::InvalidType, "%s: %s has dtype %s, expected %s", kOp, what,
             to_string(t.dtype()), to_string(dtype));
  }
  if (!t.is_contiguous_order()) {
    ETR_FAIL(Error::NotSupported, "%s: %s must use the default (contiguous) dim order", kOp, what);
  }
  return Error::Ok;
}

// weight / bias must have exactly normalized_shape.
Error check_affine(const char* what, const Tensor* t, IntArrayRef normalized_shape,
                   ScalarType dtype) {
  if (t == nullptr) return Error::Ok;
  ETR_RETURN_IF_ERROR(check_tensor(what, *t, dtype));
  bool same = t->dim() == normalized_shape.size();
  for (size_t i = 0; same && i < t->dim(); ++i) same = t->size(i) == normalized_shape[i];
  if (!same) {
    ETR_FAIL(Error::InvalidArgument, "%s: %s has shape %s, expected normalized_shape %s", kOp,
             what, ShapeText(t->sizes()).c_str(), ShapeText(normalized_shape).c_str());
  }
  return Error::Ok;
}

// Validates the arguments and resizes the outputs; *rows / *cols get M and N.
Error prepare(const Tensor& input, IntArrayRef normalized_shape, const Tensor* weight,
              const Tensor* bias, Tensor& out, Tensor& mean, Tensor& rstd, int64_t* rows,
              int64_t* cols) {
  const ScalarType dtype = input.dtype();
  if (!is_floating(dtype)) {
    ETR_FAIL(Error::InvalidType, "%s: input must be float or double, got %s", kOp,
             to_string(dtype));
  }
  const size_t rank = input.dim();
  const size_t k = normalized_shape.size();
  bool matches = k >= 1 && k <= rank;
  for (size_t i = 0; matches && i < k; ++i) {
    matches = input.size(rank - k + i) == normalized_shape[i];
  }
  if (!matches) {
    ETR_FAIL(Error::InvalidArgument, "%s: normalized_shape %s does not match the trailing dims "
             "of input %s", kOp, ShapeText(normalized_shape).c_str(),
             ShapeText(input.sizes()).c_str());
  }
  ETR_RETURN_IF_ERROR(check_tensor("input", input, dtype));
  ETR_RETURN_IF_ERROR(check_affine("weight", weight, normalized_shape, dtype));
  ETR_RETURN_IF_ERROR(check_affine("bias", bias, normalized_shape, dtype));
  ETR_RETURN_IF_ERROR(check_tensor("out", out, dtype));
  ETR_RETURN_IF_ERROR(check_tensor("mean", mean, dtype));
  ETR_RETURN_IF_ERROR(check_tensor("rstd", rstd, dtype));
  ETR_RETURN_IF_ERROR(resize_like(kOp, out, input));
  int64_t stat_sizes[kTensorMaxDim];
  *rows = 1;
  *cols = 1;
  for (size_t d = 0; d < rank; ++d) {
    const bool normalized = d >= rank - k;
    stat_sizes[d] = normalized ? 1 : input.size(d);
    (normalized ? *cols : *rows) *= input.size(d);
  }
  const Span<const int64_t> stat_shape(stat_sizes, rank);
  for (Tensor* stat : {&mean, &rstd}) {
    if (stat->dim() != rank || resize_tensor(*stat, stat_shape) != Error::Ok) {
      ETR_FAIL(Error::InvalidArgument, "%s: mean/rstd out %s cannot hold shape %s", kOp,
               ShapeText(stat->sizes()).c_str(), ShapeText(stat_shape).c_str());
    }
  }
  return Error::Ok;
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

void native_layer_norm_out(KernelContext& ctx, const Tensor& input, IntArrayRef normalized_shape,
                           const Tensor* weight, const Tensor* bias, double eps, Tensor& out,
                           Tensor& mean_out, Tensor& rstd_out) {
  int64_t rows = 0;
  int64_t cols = 0;
  if (!kernel_ok(ctx, prepare(input, normalized_shape, weight, bias, out, mean_out, rstd_out,
                              &rows, &cols))) {
    return;
  }
  dispatch_floating(input.dtype(), [&](auto tag) {
    layer_norm_rows<typename decltype(tag)::type>(input, weight, bias, eps, rows, cols, out,
                                                  mean_out, rstd_out);
  });
}

}  // namespace etr
