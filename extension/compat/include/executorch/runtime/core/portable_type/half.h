// Compatibility layer (extension/compat): the official Half, which here is
// etr's own 16-bit float (runtime/core/half.h): the type the portable
// kernels read and write, so a Half tensor made through the official API is
// the same bytes and the same C++ type the kernels see. Construction from a
// float is explicit (etr::Half(1.5f)); reading converts to float implicitly.
#pragma once

#include <cstdint>

#include "runtime/core/half.h"

namespace executorch {
namespace runtime {
namespace etensor {

using Half = ::etr::Half;

namespace internal {
// IEEE binary16 bits from a float (round to nearest even) and back.
inline uint16_t fp16_ieee_from_fp32_value(float f) {
  return ::etr::internal::float_to_half_bits(f);
}
inline float fp16_ieee_to_fp32_value(uint16_t h) { return ::etr::internal::half_bits_to_float(h); }
inline uint32_t fp32_to_bits(float f) { return ::etr::internal::float_bits(f); }
inline float fp32_from_bits(uint32_t u) { return ::etr::internal::bits_float(u); }
}  // namespace internal

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Half;
}  // namespace executor
}  // namespace torch
