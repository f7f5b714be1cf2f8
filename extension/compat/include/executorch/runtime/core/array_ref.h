// Compatibility layer (extension/compat): ArrayRef<T>, a read-only view of
// a contiguous array (etr's Span<const T>), under the official names.
#pragma once

#include <executorch/runtime/core/portable_type/tensor.h>

namespace executorch {
namespace runtime {
template <typename T>
using ArrayRef = ::executorch::runtime::etensor::ArrayRef<T>;

// An ArrayRef over `length` elements at `data`.
template <typename T>
ArrayRef<T> makeArrayRef(const T* data, size_t length) {
  return ArrayRef<T>(data, length);
}
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::ArrayRef;
using ::executorch::runtime::makeArrayRef;
}  // namespace executor
}  // namespace torch
