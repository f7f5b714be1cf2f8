// Compatibility layer (extension/compat): whether a tensor's shape may change
// (values equal etr::ShapeDynamism's).
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {
enum class TensorShapeDynamism : uint8_t {
  STATIC = 0,
  DYNAMIC_BOUND = 1,
  DYNAMIC_UNBOUND = 2,
};
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::TensorShapeDynamism;
}  // namespace executor
}  // namespace torch
