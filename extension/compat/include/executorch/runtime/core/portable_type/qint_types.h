// Compatibility layer (extension/compat): the official quantized element
// types (QInt8, QUInt8, QInt32, QUInt4x2, QUInt2x4): the stored integer
// only; scales and zero points travel separately, as in the format.
#pragma once

#include <cstdint>

namespace executorch {
namespace runtime {
namespace etensor {

struct alignas(1) qint8 {
  using underlying = int8_t;
  int8_t val_;
  qint8() = default;
  explicit qint8(int8_t val) : val_(val) {}
};

struct alignas(1) quint8 {
  using underlying = uint8_t;
  uint8_t val_;
  quint8() = default;
  explicit quint8(uint8_t val) : val_(val) {}
};

struct alignas(4) qint32 {
  using underlying = int32_t;
  int32_t val_;
  qint32() = default;
  explicit qint32(int32_t val) : val_(val) {}
};

// Two unsigned 4-bit values in one byte.
struct alignas(1) quint4x2 {
  using underlying = uint8_t;
  uint8_t val_;
  quint4x2() = default;
  explicit quint4x2(uint8_t val) : val_(val) {}
};

// Four unsigned 2-bit values in one byte.
struct alignas(1) quint2x4 {
  using underlying = uint8_t;
  uint8_t val_;
  quint2x4() = default;
  explicit quint2x4(uint8_t val) : val_(val) {}
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::qint32;
using ::executorch::runtime::etensor::qint8;
using ::executorch::runtime::etensor::quint2x4;
using ::executorch::runtime::etensor::quint4x2;
using ::executorch::runtime::etensor::quint8;
}  // namespace executor
}  // namespace torch
