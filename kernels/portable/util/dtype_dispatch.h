// dtype dispatch for kernels: call a generic lambda with a type tag.
//
//   const bool known = dispatch_real(t.dtype(), [&](auto tag) {
//     using T = typename decltype(tag)::type;
//     ...
//   });
//   // The switch's default: Error::Internal for a dtype load should have refused.
//   ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), known, t.dtype()));
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/core/scalar_type.h"

namespace etr {

template <typename T>
struct TypeTag {
  using type = T;
};

// Integer and floating types: uint8, int8, int16, int32, int64, float, double.
template <typename F>
bool dispatch_real(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    case ScalarType::Long: f(TypeTag<int64_t>{}); return true;
    case ScalarType::Float: f(TypeTag<float>{}); return true;
    case ScalarType::Double: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

// dispatch_real plus bool.
template <typename F>
bool dispatch_real_and_bool(ScalarType t, F&& f) {
  if (t == ScalarType::Bool) {
    f(TypeTag<bool>{});
    return true;
  }
  return dispatch_real(t, static_cast<F&&>(f));
}

// Integer types only (bool excluded).
template <typename F>
bool dispatch_integral(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    case ScalarType::Long: f(TypeTag<int64_t>{}); return true;
    default: return false;
  }
}

// Floating types: float, double.
template <typename F>
bool dispatch_floating(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(TypeTag<float>{}); return true;
    case ScalarType::Double: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

// Element i of storage of element type T. Bool storage is read as a byte
// (!= 0): a hostile program can alias a Bool tensor with other data, and a
// byte other than 0 or 1 read as bool is undefined behaviour.
template <typename T>
inline T read_elem(const T* p, int64_t i) {
  if constexpr (std::is_same<T, bool>::value) {
    return reinterpret_cast<const uint8_t*>(p)[i] != 0;
  } else {
    return p[i];
  }
}

// The ScalarType of a C++ element type.
template <typename T>
constexpr ScalarType scalar_type_of();
template <>
constexpr ScalarType scalar_type_of<uint8_t>() {
  return ScalarType::Byte;
}
template <>
constexpr ScalarType scalar_type_of<int8_t>() {
  return ScalarType::Char;
}
template <>
constexpr ScalarType scalar_type_of<int16_t>() {
  return ScalarType::Short;
}
template <>
constexpr ScalarType scalar_type_of<int32_t>() {
  return ScalarType::Int;
}
template <>
constexpr ScalarType scalar_type_of<int64_t>() {
  return ScalarType::Long;
}
template <>
constexpr ScalarType scalar_type_of<float>() {
  return ScalarType::Float;
}
template <>
constexpr ScalarType scalar_type_of<double>() {
  return ScalarType::Double;
}
template <>
constexpr ScalarType scalar_type_of<bool>() {
  return ScalarType::Bool;
}

}  // namespace etr
