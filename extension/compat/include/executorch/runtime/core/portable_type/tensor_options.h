// Compatibility layer (extension/compat): the official MemoryFormat and
// Layout enums (the only values ExecuTorch tensors take).
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

enum class MemoryFormat : int8_t {
  Contiguous = 0,  // row-major
  Preserve = 1,    // an output keeps its input's layout
};

enum class Layout : int8_t {
  Strided = 0,  // dense, indexed through strides
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Layout;
using ::executorch::runtime::etensor::MemoryFormat;
}  // namespace executor
}  // namespace torch
