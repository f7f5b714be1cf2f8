// Compatibility layer (extension/compat): whether a tensor's shape may change
// (values equal etr::ShapeDynamism's).
#pragma once

#include <cstdint>

#include "runtime/core/tensor.h"

namespace executorch {
namespace runtime {
// etr's ShapeDynamism, which carries the official spellings STATIC,
// DYNAMIC_BOUND and DYNAMIC_UNBOUND with the official values, so a value
// passes unchanged between the two faces (e.g. into TensorImpl's
// constructor).
using TensorShapeDynamism = ::etr::ShapeDynamism;
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::TensorShapeDynamism;
}  // namespace executor
}  // namespace torch
