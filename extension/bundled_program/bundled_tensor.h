// Internal to extension/bundled_program: a checked view of a bundled tensor.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace etr_bp {
struct Tensor;
}

namespace etr {
namespace internal {

struct BundledTensor {
  ScalarType dtype = ScalarType::Float;
  size_t rank = 0;
  int32_t sizes[kTensorMaxDim] = {};
  uint8_t dim_order[kTensorMaxDim] = {};
  int64_t numel = 1;
  // numel * element size bytes, row-major.
  const uint8_t* data = nullptr;
  size_t nbytes = 0;
};

// Reads a tensor that BundledProgram::load has checked (every field is then
// in range). An absent dim_order is the identity.
BundledTensor read_bundled_tensor(const etr_bp::Tensor& t);

}  // namespace internal
}  // namespace etr
