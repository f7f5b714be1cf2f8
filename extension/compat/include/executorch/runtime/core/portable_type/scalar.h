// Compatibility layer (extension/compat): the official Scalar, a boxed
// operator argument holding an int64, a double or a bool. to<T>() for
// T = int64_t, double, bool; asking for the wrong kind aborts (ET_CHECK), as
// in the official runtime.
#pragma once

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>

#include <cstdint>
#include <type_traits>

namespace executorch {
namespace runtime {
namespace etensor {

class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}

  template <typename T,
            typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value,
                                    bool>::type = true>
  /* implicit */ Scalar(T val) : tag_(Tag::Int) {
    v_.as_int = static_cast<int64_t>(val);
  }
  /* implicit */ Scalar(bool val) : tag_(Tag::Bool) { v_.as_bool = val; }
  /* implicit */ Scalar(double val) : tag_(Tag::Double) { v_.as_double = val; }
  /* implicit */ Scalar(BFloat16 val) : Scalar(static_cast<double>(static_cast<float>(val))) {}
  /* implicit */ Scalar(Half val) : Scalar(static_cast<double>(static_cast<float>(val))) {}

  template <typename T>
  T to() const;

  bool isIntegral(bool includeBool) const {
    return tag_ == Tag::Int || (includeBool && isBoolean());
  }
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isBoolean() const { return tag_ == Tag::Bool; }

 private:
  int64_t toInt() const {
    if (isBoolean()) return static_cast<int64_t>(v_.as_bool);
    ET_CHECK_MSG(tag_ == Tag::Int, "Scalar is not an int nor a Boolean.");
    return v_.as_int;
  }
  double toDouble() const {
    ET_CHECK_MSG(isFloatingPoint(), "Scalar is not a Double.");
    return v_.as_double;
  }
  bool toBool() const {
    ET_CHECK_MSG(isBoolean(), "Scalar is not a Boolean.");
    return v_.as_bool;
  }

  Tag tag_;
  union Payload {
    double as_double;
    int64_t as_int;
    bool as_bool;
    Payload() : as_int(0) {}
  } v_;
};

template <>
inline int64_t Scalar::to<int64_t>() const {
  return toInt();
}
template <>
inline double Scalar::to<double>() const {
  return toDouble();
}
template <>
inline bool Scalar::to<bool>() const {
  return toBool();
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::Scalar;
}  // namespace executor
}  // namespace torch
