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
