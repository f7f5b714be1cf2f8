// Compatibility layer (extension/compat): the official ArrayRef, a read-only
// view of contiguous elements. It is etr::Span<const T>, the view etr's own
// tensors hand out for sizes, dim order and strides, so those come back
// without a copy.
#pragma once

#include <cstddef>

#include "runtime/core/span.h"

namespace etr {
// The official ArrayRef's comparison: the same length and equal elements.
// (Declared with etr::Span, so that lookup finds it for ArrayRef arguments.)
template <typename T>
bool operator==(Span<const T> a, Span<const T> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}
template <typename T>
bool operator!=(Span<const T> a, Span<const T> b) {
  return !(a == b);
}
}  // namespace etr

namespace executorch {
namespace runtime {
namespace etensor {
template <typename T>
using ArrayRef = ::etr::Span<const T>;
}  // namespace etensor

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
