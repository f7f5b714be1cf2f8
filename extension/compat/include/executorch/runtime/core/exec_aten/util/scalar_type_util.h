// Compatibility layer (extension/compat): CppTypeToScalarType<T>::value and
// elementSize(), under the official names.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>

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
#undef ETR_COMPAT_CPP_TYPE

inline size_t elementSize(::executorch::aten::ScalarType t) { return ::etr::element_size(t); }

}  // namespace runtime
}  // namespace executorch
