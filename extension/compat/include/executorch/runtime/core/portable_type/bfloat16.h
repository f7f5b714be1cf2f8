// Compatibility layer (extension/compat): the official BFloat16, which here
// is etr's own bfloat16 (runtime/core/half.h), the type the portable kernels
// use. Construction from a float is explicit; reading converts to float.
#pragma once

#include <cstdint>

#include "runtime/core/half.h"

namespace executorch {
namespace runtime {
namespace etensor {

using BFloat16 = ::etr::BFloat16;

namespace internal {
inline float f32_from_bits(uint16_t b) { return ::etr::internal::bfloat16_bits_to_float(b); }
inline uint16_t round_to_nearest_even(float f) {
  return ::etr::internal::float_to_bfloat16_bits(f);
}
}  // namespace internal

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::BFloat16;
}  // namespace executor
}  // namespace torch
