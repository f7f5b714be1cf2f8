// Compatibility layer (extension/compat): Span<T> (data(), size(), begin(),
// end(), operator[]), etr's span under the official name.
#pragma once

#include "runtime/core/span.h"

namespace executorch {
namespace runtime {
template <typename T>
using Span = ::etr::Span<T>;
}  // namespace runtime
}  // namespace executorch

// The deprecated torch::executor spelling that older code still uses.
namespace torch {
namespace executor {
using ::executorch::runtime::Span;
}  // namespace executor
}  // namespace torch
