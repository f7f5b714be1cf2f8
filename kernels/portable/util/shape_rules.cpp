#include "kernels/portable/util/shape_rules.h"

#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// True when the trailing sizes of `t` (all of them when whole) are `shape`.
bool ends_with(const Tensor& t, IntArrayRef shape, bool whole) {
  const size_t rank = t.dim();
  const size_t k = shape.size();
  if (k > rank || (whole && k != rank)) return false;
  for (size_t i = 0; i < k; ++i) {
    if (t.size(rank - k + i) != shape[i]) return false;
  }
  return true;
}

}  // namespace

Error linear_resize_output(const char* op, const Tensor& input, const Tensor& weight,
                           const Tensor* bias, Tensor& out) {
  const size_t r = input.dim();
  const int64_t k = input.size(r - 1);
  const int64_t n = weight.size(0);
  ETR_CHECK_OR_FAIL(weight.size(1) == k, Error::InvalidArgument,
                    "%s: inner dims differ: input %s, weight %s", op, ShapeText(input).c_str(),
                    ShapeText(weight).c_str());
  ETR_CHECK_OR_FAIL(bias == nullptr || bias->numel() == n || bias->numel() == 1,
                    Error::InvalidArgument, "%s: bias %s does not match %lld output features", op,
                    ShapeText(*bias).c_str(), static_cast<long long>(n));
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d + 1 < r; ++d) sizes[d] = input.size(d);
  sizes[r - 1] = n;
  return resize_output(op, out, Span<const int64_t>(sizes, r));
}

Error layer_norm_resize_outputs(const char* op, const Tensor& input, IntArrayRef normalized_shape,
                                const Tensor* weight, const Tensor* bias, Tensor& out, Tensor& mean,
                                Tensor& rstd, int64_t* rows, int64_t* cols) {
  const IntArrayRef ns = normalized_shape;
  ETR_CHECK_OR_FAIL(ends_with(input, ns, false), Error::InvalidArgument,
                    "%s: normalized_shape %s does not match the trailing dims of input %s", op,
                    ShapeText(ns).c_str(), ShapeText(input).c_str());
  for (const Tensor* t : {weight, bias}) {
    ETR_CHECK_OR_FAIL(t == nullptr || ends_with(*t, ns, true), Error::InvalidArgument,
                      "%s: weight/bias has shape %s, expected normalized_shape %s", op,
                      ShapeText(*t).c_str(), ShapeText(ns).c_str());
  }
  ETR_RETURN_IF_ERROR(resize_output(op, out, input.sizes()));
  const size_t rank = input.dim();
  int64_t stat_sizes[kTensorMaxDim];
  *rows = 1;
  *cols = 1;
  for (size_t d = 0; d < rank; ++d) {
    const bool normalized = d >= rank - ns.size();
    stat_sizes[d] = normalized ? 1 : input.size(d);
    (normalized ? *cols : *rows) *= input.size(d);
  }
  ETR_RETURN_IF_ERROR(resize_output(op, mean, Span<const int64_t>(stat_sizes, rank)));
  return resize_output(op, rstd, Span<const int64_t>(stat_sizes, rank));
}

}  // namespace etr
