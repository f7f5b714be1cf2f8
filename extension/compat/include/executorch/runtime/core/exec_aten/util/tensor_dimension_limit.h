// Compatibility layer (extension/compat): the largest tensor rank the
// runtime supports (etr's kTensorMaxDim).
#pragma once

#include <cstddef>

#include "runtime/core/tensor.h"

namespace executorch {
namespace runtime {
constexpr size_t kTensorDimensionLimit = ::etr::kTensorMaxDim;
}  // namespace runtime
}  // namespace executorch
