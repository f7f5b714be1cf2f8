// Compatibility layer (extension/compat): CppTypeToScalarType<T>::value,
// elementSize(), toString(), the dtype categories (isIntegralType, ...) and
// canCast() (ATen's casting rules), under the official names.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/portable_type/qint_types.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {

template <typename T>
struct CppTypeToScalarType;

#define ETR_COMPAT_CPP_TYPE(ctype, dtype)                                                          \
  template <>                                                                                      \
  struct CppTypeToScalarType<ctype> {                                                              \
    static constexpr ::executorch::aten::ScalarType value = ::executorch::aten::ScalarType::dtype; \
  }
ETR_COMPAT_CPP_TYPE(uint8_t, Byte);
ETR_COMPAT_CPP_TYPE(int8_t, Char);
ETR_COMPAT_CPP_TYPE(int16_t, Short);
ETR_COMPAT_CPP_TYPE(int32_t, Int);
ETR_COMPAT_CPP_TYPE(int64_t, Long);
ETR_COMPAT_CPP_TYPE(float, Float);
ETR_COMPAT_CPP_TYPE(double, Double);
ETR_COMPAT_CPP_TYPE(bool, Bool);
ETR_COMPAT_CPP_TYPE(uint16_t, UInt16);
ETR_COMPAT_CPP_TYPE(uint32_t, UInt32);
ETR_COMPAT_CPP_TYPE(uint64_t, UInt64);
ETR_COMPAT_CPP_TYPE(::executorch::aten::Half, Half);
ETR_COMPAT_CPP_TYPE(::executorch::aten::BFloat16, BFloat16);
ETR_COMPAT_CPP_TYPE(::executorch::aten::complex<float>, ComplexFloat);
ETR_COMPAT_CPP_TYPE(::executorch::aten::complex<double>, ComplexDouble);
#undef ETR_COMPAT_CPP_TYPE

// The same for const / volatile element types.
template <typename T>
struct CppTypeToScalarType<const T> : CppTypeToScalarType<T> {};
template <typename T>
struct CppTypeToScalarType<volatile T> : CppTypeToScalarType<T> {};
template <typename T>
struct CppTypeToScalarType<const volatile T> : CppTypeToScalarType<T> {};

// ScalarTypeToCppType<ScalarType::X>::type: the C++ element type of a dtype
// (the reverse of the table above; Bool is bool, the quantized types are
// their wrapper structs).
template <::executorch::aten::ScalarType N>
struct ScalarTypeToCppType;

#define ETR_COMPAT_SCALAR_TYPE(ctype, dtype)                          \
  template <>                                                         \
  struct ScalarTypeToCppType<::executorch::aten::ScalarType::dtype> { \
    using type = ctype;                                               \
  }
ETR_COMPAT_SCALAR_TYPE(uint8_t, Byte);
ETR_COMPAT_SCALAR_TYPE(int8_t, Char);
ETR_COMPAT_SCALAR_TYPE(int16_t, Short);
ETR_COMPAT_SCALAR_TYPE(int32_t, Int);
ETR_COMPAT_SCALAR_TYPE(int64_t, Long);
ETR_COMPAT_SCALAR_TYPE(float, Float);
ETR_COMPAT_SCALAR_TYPE(double, Double);
ETR_COMPAT_SCALAR_TYPE(bool, Bool);
ETR_COMPAT_SCALAR_TYPE(uint16_t, UInt16);
ETR_COMPAT_SCALAR_TYPE(uint32_t, UInt32);
ETR_COMPAT_SCALAR_TYPE(uint64_t, UInt64);
ETR_COMPAT_SCALAR_TYPE(::executorch::aten::Half, Half);
ETR_COMPAT_SCALAR_TYPE(::executorch::aten::BFloat16, BFloat16);
ETR_COMPAT_SCALAR_TYPE(::executorch::aten::complex<float>, ComplexFloat);
ETR_COMPAT_SCALAR_TYPE(::executorch::aten::complex<double>, ComplexDouble);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::qint8, QInt8);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::quint8, QUInt8);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::qint32, QInt32);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::quint4x2, QUInt4x2);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::quint2x4, QUInt2x4);
#undef ETR_COMPAT_SCALAR_TYPE

// Bytes per element; 0 for a value outside the format's range.
inline size_t elementSize(::executorch::aten::ScalarType t) { return ::etr::element_size(t); }

inline const char* toString(::executorch::aten::ScalarType t) { return ::etr::to_string(t); }

inline constexpr bool isValid(::executorch::aten::ScalarType t) { return ::etr::is_valid(t); }

// Byte, Char, Short, Int, Long (and Bool when asked); the unsigned UInt16/32/64
// are "barebones" types outside this category, as upstream.
inline constexpr bool isIntegralType(::executorch::aten::ScalarType t, bool includeBool) {
  using ::executorch::aten::ScalarType;
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long || (includeBool && t == ScalarType::Bool);
}

inline constexpr bool isFloatingType(::executorch::aten::ScalarType t) {
  return ::etr::is_floating(t);
}

inline constexpr bool isComplexType(::executorch::aten::ScalarType t) {
  return ::etr::is_complex(t);
}

inline constexpr bool isQIntType(::executorch::aten::ScalarType t) {
  using ::executorch::aten::ScalarType;
  return t == ScalarType::QInt8 || t == ScalarType::QUInt8 || t == ScalarType::QInt32 ||
         t == ScalarType::QUInt4x2 || t == ScalarType::QUInt2x4;
}

inline constexpr bool isBitsType(::executorch::aten::ScalarType t) {
  using ::executorch::aten::ScalarType;
  return t == ScalarType::Bits1x8 || t == ScalarType::Bits2x4 || t == ScalarType::Bits4x2 ||
         t == ScalarType::Bits8 || t == ScalarType::Bits16;
}

inline constexpr bool is_barebones_unsigned_type(::executorch::aten::ScalarType t) {
  using ::executorch::aten::ScalarType;
  return t == ScalarType::UInt16 || t == ScalarType::UInt32 || t == ScalarType::UInt64;
}

// ATen's rules: no complex -> real, no floating -> integral, and nothing but
// Bool -> Bool.
inline constexpr bool canCast(::executorch::aten::ScalarType from,
                              ::executorch::aten::ScalarType to) {
  using ::executorch::aten::ScalarType;
  return !(isComplexType(from) && !isComplexType(to)) &&
         !(isFloatingType(from) && isIntegralType(to, /*includeBool=*/false)) &&
         !(from != ScalarType::Bool && to == ScalarType::Bool);
}

}  // namespace runtime
}  // namespace executorch

// The official "for all" lists: each calls X(ctype, ScalarTypeName) once per
// dtype of the group. The C++ type names are unqualified where the official
// ones are, so callers may paste them into identifiers.
#define ET_FORALL_INT_TYPES(X) \
  X(uint8_t, Byte)             \
  X(int8_t, Char)              \
  X(int16_t, Short)            \
  X(int32_t, Int)              \
  X(int64_t, Long)
#define ET_FORALL_FLOAT_TYPES(X) \
  X(float, Float)                \
  X(double, Double)
#define ET_FORALL_REAL_TYPES(X) \
  ET_FORALL_INT_TYPES(X)        \
  ET_FORALL_FLOAT_TYPES(X)
#define ET_FORALL_QINT_TYPES(X)            \
  X(::torch::executor::qint8, QInt8)       \
  X(::torch::executor::quint8, QUInt8)     \
  X(::torch::executor::qint32, QInt32)     \
  X(::torch::executor::quint4x2, QUInt4x2) \
  X(::torch::executor::quint2x4, QUInt2x4)

namespace executorch {
namespace aten {
using ::executorch::runtime::elementSize;
}  // namespace aten
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::canCast;
using ::executorch::runtime::CppTypeToScalarType;
using ::executorch::runtime::elementSize;
using ::executorch::runtime::isComplexType;
using ::executorch::runtime::isFloatingType;
using ::executorch::runtime::isIntegralType;
using ::executorch::runtime::isQIntType;
using ::executorch::runtime::ScalarTypeToCppType;
using ::executorch::runtime::toString;
}  // namespace executor
}  // namespace torch
