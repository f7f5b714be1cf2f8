// Compatibility layer (extension/compat): CppTypeToScalarType<T>::value,
// elementSize(), toString(), the dtype categories (isIntegralType, ...) and
// canCast() (ATen's casting rules), under the official names.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/portable_type/bits_types.h>
#include <executorch/runtime/core/portable_type/qint_types.h>
#include <executorch/runtime/platform/log.h>

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
ETR_COMPAT_SCALAR_TYPE(::executorch::aten::complex<::executorch::aten::Half>, ComplexHalf);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::bits1x8, Bits1x8);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::bits2x4, Bits2x4);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::bits4x2, Bits4x2);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::bits8, Bits8);
ETR_COMPAT_SCALAR_TYPE(::executorch::runtime::etensor::bits16, Bits16);
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

// ET_SWITCH_*: dtype dispatch. Each expands to an immediately called lambda
// that switches on TYPE; in the case of each dtype of the group it declares
// CTYPE_ALIAS as that dtype's C++ type and returns the result of calling the
// last argument (a lambda). A dtype outside the group makes CONTEXT (a
// KernelRuntimeContext, or anything with fail(Error)) fail with
// InvalidArgument and logs the dtype and NAME; nothing is called then.
//
//   ET_SWITCH_REALHBF16_TYPES(in.scalar_type(), ctx, "my_op.out", CTYPE, [&]() {
//     out.mutable_data_ptr<CTYPE>()[0] = in.const_data_ptr<CTYPE>()[0];
//   });
#define ET_INTERNAL_SWITCH_CASE(enum_type, CTYPE_ALIAS, ...)         \
  case enum_type: {                                                  \
    using CTYPE_ALIAS [[maybe_unused]] =                             \
        ::executorch::runtime::ScalarTypeToCppType<enum_type>::type; \
    return __VA_ARGS__();                                            \
  }
#define ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME, ...)                               \
  [&] {                                                                            \
    const ::executorch::aten::ScalarType et_switch_type_ = TYPE;                   \
    const char* et_switch_name_ = NAME;                                            \
    switch (et_switch_type_) {                                                     \
      __VA_ARGS__                                                                  \
      default:                                                                     \
        (CONTEXT).fail(::executorch::runtime::Error::InvalidArgument);             \
        ET_LOG(Error, "Unhandled dtype %s for %s",                                 \
               ::executorch::runtime::toString(et_switch_type_), et_switch_name_); \
    }                                                                              \
  }()

#define ET_INTERNAL_SWITCH_ONE(T, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_CASE(::executorch::aten::ScalarType::T, CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(Byte, CTYPE_ALIAS, __VA_ARGS__)    \
  ET_INTERNAL_SWITCH_ONE(Char, CTYPE_ALIAS, __VA_ARGS__)    \
  ET_INTERNAL_SWITCH_ONE(Short, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_ONE(Int, CTYPE_ALIAS, __VA_ARGS__)     \
  ET_INTERNAL_SWITCH_ONE(Long, CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_UINT_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(UInt16, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_ONE(UInt32, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_ONE(UInt64, CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(Float, CTYPE_ALIAS, __VA_ARGS__)     \
  ET_INTERNAL_SWITCH_ONE(Double, CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_COMPLEX_TYPES(CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH_ONE(ComplexFloat, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_ONE(ComplexDouble, CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_COMPLEXH_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(ComplexHalf, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_CASE_COMPLEX_TYPES(CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_QINT_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(QInt8, CTYPE_ALIAS, __VA_ARGS__)    \
  ET_INTERNAL_SWITCH_ONE(QUInt8, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_ONE(QInt32, CTYPE_ALIAS, __VA_ARGS__)   \
  ET_INTERNAL_SWITCH_ONE(QUInt4x2, CTYPE_ALIAS, __VA_ARGS__) \
  ET_INTERNAL_SWITCH_ONE(QUInt2x4, CTYPE_ALIAS, __VA_ARGS__)
#define ET_INTERNAL_SWITCH_CASE_BITS_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(Bits1x8, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_ONE(Bits2x4, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_ONE(Bits4x2, CTYPE_ALIAS, __VA_ARGS__)  \
  ET_INTERNAL_SWITCH_ONE(Bits8, CTYPE_ALIAS, __VA_ARGS__)    \
  ET_INTERNAL_SWITCH_ONE(Bits16, CTYPE_ALIAS, __VA_ARGS__)
// The dtypes a Scalar holds: Bool, Long (ints), Double (floats).
#define ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_TYPES(CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH_ONE(Bool, CTYPE_ALIAS, __VA_ARGS__)           \
  ET_INTERNAL_SWITCH_ONE(Long, CTYPE_ALIAS, __VA_ARGS__)           \
  ET_INTERNAL_SWITCH_ONE(Double, CTYPE_ALIAS, __VA_ARGS__)

// Groups (upstream's names): REAL = INT + FLOAT; H adds Half, BF16 BFloat16,
// B Bool; _AND/_AND2/_AND3 add the named dtypes.
#define ET_SWITCH_INT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                          \
                     ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_INT_TYPES_AND(A1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)       \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                        \
                     ET_INTERNAL_SWITCH_CASE_INT_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_FLOAT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                            \
                     ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_FLOAT_TYPES_AND(A1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)       \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                          \
                     ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_FLOAT_TYPES_AND2(A1, A2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                          \
                     ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__)      \
                             ET_INTERNAL_SWITCH_ONE(A2, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_FLOAT_TYPES_AND3(A1, A2, A3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                             \
                     ET_INTERNAL_SWITCH_CASE_FLOAT_TYPES(CTYPE_ALIAS, __VA_ARGS__)    \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__)         \
                             ET_INTERNAL_SWITCH_ONE(A2, CTYPE_ALIAS, __VA_ARGS__)     \
                                 ET_INTERNAL_SWITCH_ONE(A3, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_FLOATH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND(Half, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_FLOATHBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND2(Half, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_FLOATHBF16_TYPES_AND(A1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_FLOAT_TYPES_AND3(Half, BFloat16, A1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                           \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_REAL_TYPES_AND(A1, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)       \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                         \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_REAL_TYPES_AND2(A1, A2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)  \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                         \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__)     \
                             ET_INTERNAL_SWITCH_ONE(A2, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_REAL_TYPES_AND3(A1, A2, A3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                            \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__)    \
                         ET_INTERNAL_SWITCH_ONE(A1, CTYPE_ALIAS, __VA_ARGS__)        \
                             ET_INTERNAL_SWITCH_ONE(A2, CTYPE_ALIAS, __VA_ARGS__)    \
                                 ET_INTERNAL_SWITCH_ONE(A3, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_REALH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND(Half, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_REALB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND(Bool, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_REALHB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND2(Half, Bool, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_REALHBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND2(Half, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_REALHBBF16_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_REAL_TYPES_AND3(Half, Bool, BFloat16, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_REALHBBF16_AND_UINT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)          \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                                   \
                     ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__)           \
                         ET_INTERNAL_SWITCH_ONE(Half, CTYPE_ALIAS, __VA_ARGS__)             \
                             ET_INTERNAL_SWITCH_ONE(Bool, CTYPE_ALIAS, __VA_ARGS__)         \
                                 ET_INTERNAL_SWITCH_ONE(BFloat16, CTYPE_ALIAS, __VA_ARGS__) \
                                     ET_INTERNAL_SWITCH_CASE_UINT_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_QINT_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                           \
                     ET_INTERNAL_SWITCH_CASE_QINT_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_COMPLEX_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                              \
                     ET_INTERNAL_SWITCH_CASE_COMPLEX_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_COMPLEXH_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                               \
                     ET_INTERNAL_SWITCH_CASE_COMPLEXH_TYPES(CTYPE_ALIAS, __VA_ARGS__))
// Every dtype: REAL, Half, BFloat16, Bool, the complex, quantized and bits types.
#define ET_SWITCH_ALL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...)                     \
  ET_INTERNAL_SWITCH(                                                                  \
      TYPE, CONTEXT, NAME,                                                             \
      ET_INTERNAL_SWITCH_CASE_REAL_TYPES(CTYPE_ALIAS, __VA_ARGS__)                     \
          ET_INTERNAL_SWITCH_ONE(Half, CTYPE_ALIAS, __VA_ARGS__)                       \
              ET_INTERNAL_SWITCH_ONE(BFloat16, CTYPE_ALIAS, __VA_ARGS__)               \
                  ET_INTERNAL_SWITCH_ONE(Bool, CTYPE_ALIAS, __VA_ARGS__)               \
                      ET_INTERNAL_SWITCH_CASE_COMPLEXH_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                          ET_INTERNAL_SWITCH_CASE_QINT_TYPES(CTYPE_ALIAS, __VA_ARGS__) \
                              ET_INTERNAL_SWITCH_CASE_BITS_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_SCALAR_OBJ_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                 \
                     ET_INTERNAL_SWITCH_CASE_SCALAR_OBJ_TYPES(CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_SCALAR_OBJ_REAL_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_TWO_TYPES(Long, Double, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_SCALAR_OBJ_INTB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_TWO_TYPES(Bool, Long, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_SCALAR_OBJ_FLOATB_TYPES(TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_SWITCH_TWO_TYPES(Bool, Double, TYPE, CONTEXT, NAME, CTYPE_ALIAS, __VA_ARGS__)
#define ET_SWITCH_TWO_TYPES(T1, T2, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                  \
                     ET_INTERNAL_SWITCH_ONE(T1, CTYPE_ALIAS, __VA_ARGS__)  \
                         ET_INTERNAL_SWITCH_ONE(T2, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_THREE_TYPES(T1, T2, T3, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                        \
                     ET_INTERNAL_SWITCH_ONE(T1, CTYPE_ALIAS, __VA_ARGS__)        \
                         ET_INTERNAL_SWITCH_ONE(T2, CTYPE_ALIAS, __VA_ARGS__)    \
                             ET_INTERNAL_SWITCH_ONE(T3, CTYPE_ALIAS, __VA_ARGS__))
#define ET_SWITCH_FOUR_TYPES(T1, T2, T3, T4, TYPE, CONTEXT, NAME, CTYPE_ALIAS, ...) \
  ET_INTERNAL_SWITCH(TYPE, CONTEXT, NAME,                                           \
                     ET_INTERNAL_SWITCH_ONE(T1, CTYPE_ALIAS, __VA_ARGS__)           \
                         ET_INTERNAL_SWITCH_ONE(T2, CTYPE_ALIAS, __VA_ARGS__)       \
                             ET_INTERNAL_SWITCH_ONE(T3, CTYPE_ALIAS, __VA_ARGS__)   \
                                 ET_INTERNAL_SWITCH_ONE(T4, CTYPE_ALIAS, __VA_ARGS__))
