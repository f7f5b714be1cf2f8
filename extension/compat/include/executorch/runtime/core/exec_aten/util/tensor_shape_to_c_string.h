// Compatibility layer (extension/compat): a tensor shape as a C string,
// "(2, 3, 4)", for log messages. Sizes that are negative or above INT32_MAX
// print as "ERR".
#pragma once

#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/span.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace executorch {
namespace runtime {

// Parentheses, up to 10 digits and ", " per dimension, and the NUL.
constexpr size_t kTensorShapeStringSizeLimit =
    1 + 10 * kTensorDimensionLimit + 2 * kTensorDimensionLimit + 1;

namespace internal {
constexpr size_t kMaximumPrintableTensorShapeElement = std::numeric_limits<int32_t>::max();

template <typename T>
std::array<char, kTensorShapeStringSizeLimit> shape_string(Span<const T> shape) {
  std::array<char, kTensorShapeStringSizeLimit> out{};
  if (shape.size() > kTensorDimensionLimit) {
    std::snprintf(out.data(), out.size(), "(ERR: rank %zu)", shape.size());
    return out;
  }
  size_t used = 0;
  out[used++] = '(';
  for (size_t i = 0; i < shape.size(); ++i) {
    const T v = shape[i];
    const bool printable =
        v >= 0 && static_cast<uint64_t>(v) <= kMaximumPrintableTensorShapeElement;
    const int n = printable ? std::snprintf(out.data() + used, out.size() - used, "%s%lld",
                                            i == 0 ? "" : ", ", static_cast<long long>(v))
                            : std::snprintf(out.data() + used, out.size() - used, "%sERR",
                                            i == 0 ? "" : ", ");
    if (n > 0) used += static_cast<size_t>(n);
  }
  if (used + 1 < out.size()) {
    out[used++] = ')';
    out[used] = '\0';
  }
  return out;
}
}  // namespace internal

inline std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(
    Span<const int32_t> shape) {
  return internal::shape_string(shape);
}
inline std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(
    Span<const int64_t> shape) {
  return internal::shape_string(shape);
}

}  // namespace runtime
}  // namespace executorch
