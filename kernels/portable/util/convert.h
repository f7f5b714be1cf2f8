// Element conversion shared by every portable kernel: the one place that
// turns a value of one element type into another (the dtypes of
// kRealAndBoolTypes: uint8, int8, int16, int32, int64, float, double, bool).
//
// Floating to integral is pinned to what PyTorch produces on x86-64 CPU
// (checked against torch 2.15.0, scalar and vectorized paths agree), which
// is the behaviour of the x86 truncating conversions (cvttss2si/cvttsd2si):
//   -> int64:        truncate; NaN, +-inf and values outside [-2^63, 2^63)
//                    give INT64_MIN.
//   -> int32:        truncate; NaN, +-inf and values outside int32 give
//                    INT32_MIN.
//   -> int16, int8:  the int32 result wrapped modulo 2^16 / 2^8 (so NaN,
//                    +-inf and values outside int32 give 0).
//   -> uint8:        the int64 result wrapped modulo 2^8 (-1.0 -> 255,
//                    300.0 -> 44, NaN -> 0).
//   -> bool:         x != 0 (NaN -> true).
// ISO C++ leaves out-of-range float-to-integer conversions undefined; these
// never invoke it. Integer narrowing wraps; double to float rounds to
// nearest and overflows to +-inf.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/kernel/kernel.h"

namespace etr {
namespace internal {

// cvttsd2si with a 64-bit destination.
inline int64_t float_to_int64(double d) {
  constexpr double kTwoPow63 = 9223372036854775808.0;
  return (d >= -kTwoPow63 && d < kTwoPow63) ? static_cast<int64_t>(d)
                                            : std::numeric_limits<int64_t>::min();
}

// cvttsd2si with a 32-bit destination.
inline int32_t float_to_int32(double d) {
  return (d > -2147483649.0 && d < 2147483648.0) ? static_cast<int32_t>(d)
                                                 : std::numeric_limits<int32_t>::min();
}

// Floating (float or double; every float is exact as a double) to an integer
// element type, as described at the top of this file.
template <typename To>
To float_to_integral(double d) {
  static_assert(std::is_integral<To>::value && !std::is_same<To, bool>::value, "integer target");
  if constexpr (std::is_same<To, int64_t>::value) {
    return float_to_int64(d);
  } else if constexpr (std::is_same<To, uint8_t>::value) {
    return static_cast<uint8_t>(static_cast<uint64_t>(float_to_int64(d)));
  } else {
    static_assert(std::is_signed<To>::value && sizeof(To) <= 4, "int8, int16 or int32 target");
    return static_cast<To>(float_to_int32(d));
  }
}

// double to float, rounding to nearest; values at or past FLT_MAX plus half
// an ulp become +-inf (the C++ cast is undefined for them).
inline float double_to_float(double v) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  constexpr double kRoundsToInf = 0x1.ffffffp+127;  // FLT_MAX + half an ulp
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kFloatMax = std::numeric_limits<float>::max();
  if (v > kMax) return v >= kRoundsToInf ? kInf : kFloatMax;
  if (v < -kMax) return v <= -kRoundsToInf ? -kInf : -kFloatMax;
  return static_cast<float>(v);
}

}  // namespace internal

// Converts between any two supported element types (see the top of this file).
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (std::is_same<To, float>::value && std::is_same<From, double>::value) {
    return internal::double_to_float(v);
  } else if constexpr (std::is_floating_point<From>::value && !std::is_floating_point<To>::value) {
    return internal::float_to_integral<To>(static_cast<double>(v));
  } else {
    // Integer or bool to anything wider or narrower (narrowing wraps), or
    // float to double.
    return static_cast<To>(v);
  }
}

// A Scalar argument converted to T.
template <typename T>
T scalar_to(const Scalar& s) {
  if (s.is_floating()) return convert<T>(s.to_double());
  if (s.is_bool()) return convert<T>(s.value().to_bool());
  return convert<T>(s.to_int());
}

}  // namespace etr
