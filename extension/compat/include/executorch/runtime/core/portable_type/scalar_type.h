// Compatibility layer (extension/compat): the official ScalarType, which is
// etr's own enum (runtime/core/scalar_type.h): same enumerators, same values
// (Byte = 0 ... Float = 6 ... Bool = 11 ... UInt64 = 29), so a dtype read from
// a program or set through the official API needs no translation. etr has no
// Undefined / NumOptions enumerators.
//
// ET_FORALL_SCALAR_TYPES(_) calls _(C++ type, enumerator name) for each dtype
// in value order, with the element types of this layer.
#pragma once

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/bits_types.h>
#include <executorch/runtime/core/portable_type/complex.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/portable_type/qint_types.h>

#include <cstdint>

#include "runtime/core/scalar_type.h"

namespace executorch {
namespace runtime {
namespace etensor {

// The float8 dtypes have ids in the format but no arithmetic here: storage
// types only.
namespace unused_dtype {
struct alignas(1) Float8_e5m2 {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e5m2() = default;
  explicit Float8_e5m2(uint8_t val) : x(val) {}
};
struct alignas(1) Float8_e4m3fn {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e4m3fn() = default;
  explicit Float8_e4m3fn(uint8_t val) : x(val) {}
};
struct alignas(1) Float8_e5m2fnuz {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e5m2fnuz() = default;
  explicit Float8_e5m2fnuz(uint8_t val) : x(val) {}
};
struct alignas(1) Float8_e4m3fnuz {
  uint8_t x;
  using underlying = uint8_t;
  Float8_e4m3fnuz() = default;
  explicit Float8_e4m3fnuz(uint8_t val) : x(val) {}
};
}  // namespace unused_dtype

using ScalarType = ::etr::ScalarType;

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

// clang-format off
#define ET_FORALL_SCALAR_TYPES(_)                                                          \
  _(uint8_t, Byte)                                                                         \
  _(int8_t, Char)                                                                          \
  _(int16_t, Short)                                                                        \
  _(int32_t, Int)                                                                          \
  _(int64_t, Long)                                                                         \
  _(::executorch::runtime::etensor::Half, Half)                                            \
  _(float, Float)                                                                          \
  _(double, Double)                                                                        \
  _(::executorch::runtime::etensor::complex<::executorch::runtime::etensor::Half>,         \
    ComplexHalf)                                                                           \
  _(::executorch::runtime::etensor::complex<float>, ComplexFloat)                          \
  _(::executorch::runtime::etensor::complex<double>, ComplexDouble)                        \
  _(bool, Bool)                                                                            \
  _(::executorch::runtime::etensor::qint8, QInt8)                                          \
  _(::executorch::runtime::etensor::quint8, QUInt8)                                        \
  _(::executorch::runtime::etensor::qint32, QInt32)                                        \
  _(::executorch::runtime::etensor::BFloat16, BFloat16)                                    \
  _(::executorch::runtime::etensor::quint4x2, QUInt4x2)                                    \
  _(::executorch::runtime::etensor::quint2x4, QUInt2x4)                                    \
  _(::executorch::runtime::etensor::bits1x8, Bits1x8)                                      \
  _(::executorch::runtime::etensor::bits2x4, Bits2x4)                                      \
  _(::executorch::runtime::etensor::bits4x2, Bits4x2)                                      \
  _(::executorch::runtime::etensor::bits8, Bits8)                                          \
  _(::executorch::runtime::etensor::bits16, Bits16)                                        \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e5m2, Float8_e5m2)                \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e4m3fn, Float8_e4m3fn)            \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e5m2fnuz, Float8_e5m2fnuz)        \
  _(::executorch::runtime::etensor::unused_dtype::Float8_e4m3fnuz, Float8_e4m3fnuz)        \
  _(uint16_t, UInt16)                                                                      \
  _(uint32_t, UInt32)                                                                      \
  _(uint64_t, UInt64)
// clang-format on

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::ScalarType;
}  // namespace executor
}  // namespace torch
