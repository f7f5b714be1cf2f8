// Compatibility layer (extension/compat): the official EValue Tag names.
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {

enum class Tag : uint32_t {
  None,
  Tensor,
  String,
  Double,
  Int,
  Bool,
  ListBool,
  ListDouble,
  ListInt,
  ListTensor,
  ListScalar,
  ListOptionalTensor,
};

}  // namespace runtime
}  // namespace executorch
