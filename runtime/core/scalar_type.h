// ScalarType: every dtype id of the program format, with element sizes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {

enum class ScalarType : int8_t {
  Byte = 0,   // uint8
  Char = 1,   // int8
  Short = 2,  // int16
  Int = 3,    // int32
  Long = 4,   // int64
  Half = 5,   // fp16
  Float = 6,  // fp32
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits1x8 = 18,
  Bits2x4 = 19,
  Bits4x2 = 20,
  Bits8 = 21,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

constexpr int kNumScalarTypes = 30;

// Element size in bytes; 0 for a value outside the format's range.
constexpr size_t element_size(ScalarType t) {
  constexpr uint8_t kSizes[kNumScalarTypes] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                               2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1,  1, 2, 4, 8};
  const int v = static_cast<int>(t);
  return (v >= 0 && v < kNumScalarTypes) ? kSizes[v] : 0;
}

constexpr bool is_valid(ScalarType t) { return element_size(t) != 0; }

constexpr const char* to_string(ScalarType t) {
  constexpr const char* kNames[kNumScalarTypes] = {"Byte",
                                                   "Char",
                                                   "Short",
                                                   "Int",
                                                   "Long",
                                                   "Half",
                                                   "Float",
                                                   "Double",
                                                   "ComplexHalf",
                                                   "ComplexFloat",
                                                   "ComplexDouble",
                                                   "Bool",
                                                   "QInt8",
                                                   "QUInt8",
                                                   "QInt32",
                                                   "BFloat16",
                                                   "QUInt4x2",
                                                   "QUInt2x4",
                                                   "Bits1x8",
                                                   "Bits2x4",
                                                   "Bits4x2",
                                                   "Bits8",
                                                   "Bits16",
                                                   "Float8_e5m2",
                                                   "Float8_e4m3fn",
                                                   "Float8_e5m2fnuz",
                                                   "Float8_e4m3fnuz",
                                                   "UInt16",
                                                   "UInt32",
                                                   "UInt64"};
  const int v = static_cast<int>(t);
  return (v >= 0 && v < kNumScalarTypes) ? kNames[v] : "Invalid";
}

constexpr bool is_floating(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}

// ComplexHalf, ComplexFloat, ComplexDouble: (real, imaginary) pairs of Half,
// Float, Double.
constexpr bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexHalf || t == ScalarType::ComplexFloat ||
         t == ScalarType::ComplexDouble;
}

constexpr bool is_integral(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64: return true;
    case ScalarType::Bool: return include_bool;
    default: return false;
  }
}

}  // namespace etr
