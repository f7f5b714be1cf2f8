// Host-side tensors for tools and tests: a tensor that owns its data and
// shape metadata on the heap, plus small helpers to inspect any etr::Tensor.
//
// This is an extension (desktop) library: it uses the standard library and
// the heap, but no exceptions. Fallible calls return etr::Result<T> (or
// etr::Error); the message saying what failed and where is logged at Error
// level with ETR_LOG. A caller that needs the text (to show it to a user or
// to check it in a test) receives it with etr::ErrorCapture
// (runtime/platform/error_capture.h):
//
//   char buf[512];
//   etr::ErrorCapture capture(buf, sizeof(buf));
//   etr::Result<etr::HostTensor> t = etr::read_npy(path);
//   if (!t.ok()) show(etr::to_string(t.error()), capture.message());
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace etr {
namespace internal {

// The dtype from_values() stores a C++ element type as.
template <typename T>
constexpr ScalarType host_dtype_of() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value ||
                    std::is_same<T, int64_t>::value || std::is_same<T, int32_t>::value ||
                    std::is_same<T, int16_t>::value || std::is_same<T, int8_t>::value ||
                    std::is_same<T, uint8_t>::value || std::is_same<T, bool>::value,
                "HostTensor::from_values supports float, double, int64_t, int32_t, int16_t, "
                "int8_t, uint8_t and bool");
  static_assert(sizeof(bool) == 1, "Bool tensors store one byte per element");
  return std::is_same<T, float>::value     ? ScalarType::Float
         : std::is_same<T, double>::value  ? ScalarType::Double
         : std::is_same<T, int64_t>::value ? ScalarType::Long
         : std::is_same<T, int32_t>::value ? ScalarType::Int
         : std::is_same<T, int16_t>::value ? ScalarType::Short
         : std::is_same<T, int8_t>::value  ? ScalarType::Char
         : std::is_same<T, uint8_t>::value ? ScalarType::Byte
                                           : ScalarType::Bool;
}

}  // namespace internal

// A tensor owning its element bytes, sizes, dim order and strides. The
// etr::Tensor returned by tensor() points into this object's heap buffers:
// it stays valid across moves of the HostTensor (including moves into and
// out of a Result) and until it is destroyed.
class HostTensor final {
 public:
  // Zero-filled tensor. `dim_order` lists dimensions outermost first; empty
  // means the default (contiguous) order. A DynamicBound tensor may later be
  // resized (e.g. by a kernel) to any shape that fits its initial byte size.
  // Fails on an invalid dtype (InvalidType), a rank above kTensorMaxDim,
  // negative dims or a dim order that is not a permutation (InvalidArgument),
  // or a byte size that overflows (MemoryAllocationFailed).
  static Result<HostTensor> zeros(ScalarType dtype, std::vector<int32_t> sizes,
                                  std::vector<uint8_t> dim_order = {},
                                  ShapeDynamism dynamism = ShapeDynamism::Static);
  // Tensor holding `nbytes` bytes copied from `data`, laid out in dim order.
  // Fails like zeros(), and with InvalidArgument when nbytes does not equal
  // the tensor's byte size.
  static Result<HostTensor> from_bytes(ScalarType dtype, std::vector<int32_t> sizes,
                                       const void* data, size_t nbytes,
                                       std::vector<uint8_t> dim_order = {},
                                       ShapeDynamism dynamism = ShapeDynamism::Static);
  // Tensor of the dtype matching T (float, double, int64_t, int32_t, int16_t,
  // int8_t, uint8_t, bool -> Float, Double, Long, Int, Short, Char, Byte,
  // Bool) holding `values` in storage (dim) order, copied like from_bytes().
  // Fails like zeros(), and with InvalidArgument when values.size() is not
  // the element count of `sizes`.
  template <typename T>
  static Result<HostTensor> from_values(std::vector<int32_t> sizes, const std::vector<T>& values,
                                        std::vector<uint8_t> dim_order = {},
                                        ShapeDynamism dynamism = ShapeDynamism::Static);
  // Contiguous (default dim order) copy of any tensor, elements gathered in
  // logical (row-major) order through its strides.
  static Result<HostTensor> contiguous_copy(const Tensor& t);

  HostTensor(HostTensor&& other) noexcept;
  HostTensor& operator=(HostTensor&& other) noexcept;
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;
  ~HostTensor() = default;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }
  ScalarType dtype() const { return tensor_.dtype(); }
  Span<const int32_t> sizes() const { return tensor_.sizes(); }
  // The current sizes as a vector (e.g. for EXPECT_EQ against {2, 3}).
  std::vector<int32_t> shape() const;
  size_t nbytes() const { return tensor_.nbytes(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // The stored elements (numel() of them, in storage order) read as T.
  // Precondition: sizeof(T) equals the dtype's element size; when it does
  // not, the mismatch is logged and the result is empty.
  template <typename T>
  std::vector<T> values() const;

  // Sets every element to one (1, 1.0, true; 1+0j for complex). Fails with
  // NotSupported for dtypes without a plain representation of one
  // (quantized, bit-packed, float8).
  Error fill_ones();

 private:
  HostTensor() = default;
  void rebind(const Tensor& shape_source);
  // from_values() after the element type is known: `count` elements of the
  // dtype's size at `data`.
  static Result<HostTensor> from_elements(ScalarType dtype, std::vector<int32_t> sizes,
                                          const void* data, size_t count,
                                          std::vector<uint8_t> dim_order, ShapeDynamism dynamism);
  // Logs the values<T>() precondition failure; false when sizes differ.
  bool check_value_size(size_t value_size) const;

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int64_t> strides_;
  // Never empty, so data() is non-null even for zero-element tensors.
  std::vector<uint8_t> bytes_;
  Tensor tensor_;
};

template <typename T>
Result<HostTensor> HostTensor::from_values(std::vector<int32_t> sizes, const std::vector<T>& values,
                                           std::vector<uint8_t> dim_order, ShapeDynamism dynamism) {
  constexpr ScalarType dtype = internal::host_dtype_of<T>();
  if constexpr (std::is_same<T, bool>::value) {
    // std::vector<bool> is bit-packed: widen to one byte per element.
    const std::vector<uint8_t> bytes(values.begin(), values.end());
    return from_elements(dtype, std::move(sizes), bytes.data(), bytes.size(), std::move(dim_order),
                         dynamism);
  } else {
    return from_elements(dtype, std::move(sizes), values.data(), values.size(),
                         std::move(dim_order), dynamism);
  }
}

template <typename T>
std::vector<T> HostTensor::values() const {
  static_assert(std::is_trivially_copyable<T>::value, "values<T>() copies elements as bytes");
  if (!check_value_size(sizeof(T))) return {};
  const size_t n = static_cast<size_t>(tensor_.numel());
  if constexpr (std::is_same<T, bool>::value) {
    std::vector<bool> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = bytes_[i] != 0;
    return out;
  } else {
    std::vector<T> out(n);
    if (n > 0) std::memcpy(out.data(), bytes_.data(), n * sizeof(T));
    return out;
  }
}

// "[2, 3]"-style text of a tensor's sizes.
std::string shape_string(Span<const int32_t> sizes);

// Reads one element of `dtype` at `p` as a double (Half, BFloat16, integer
// and bool types included). False for dtypes without a scalar value.
bool element_to_double(ScalarType dtype, const void* p, double* out);

// Byte offset of the element with logical (row-major) index `linear`.
size_t element_offset(const Tensor& t, size_t linear);

}  // namespace etr
