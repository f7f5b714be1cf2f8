// Compatibility layer (extension/compat): the official complex<T>, the
// element of ComplexHalf / ComplexFloat / ComplexDouble tensors: a real and
// an imaginary part of T stored in that order (the format's layout).
#pragma once

namespace executorch {
namespace runtime {
namespace etensor {

template <typename T>
struct alignas(2 * sizeof(T)) complex {
  T real_;
  T imag_;

  constexpr complex() : real_(), imag_() {}
  constexpr complex(const T& re, const T& im = T()) : real_(re), imag_(im) {}  // NOLINT

  constexpr T real() const { return real_; }
  constexpr T imag() const { return imag_; }
  constexpr bool operator==(const complex& other) const {
    return real_ == other.real_ && imag_ == other.imag_;
  }
  constexpr bool operator!=(const complex& other) const { return !(*this == other); }
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::complex;
}  // namespace executor
}  // namespace torch
