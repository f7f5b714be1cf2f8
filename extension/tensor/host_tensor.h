// Host-side tensors for tools and tests: a tensor that owns its data and
// shape metadata on the heap, plus small helpers to inspect any etr::Tensor.
//
// This is an extension (desktop) library: it uses the standard library and
// the heap, but no exceptions. Fallible calls return HostResult<T>, a value
// or a human-readable error message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace etr {

// A value of T, or an error message saying what went wrong.
template <typename T>
class HostResult final {
 public:
  HostResult(T value) : value_(std::move(value)) {}  // NOLINT (implicit by design)
  static HostResult failure(std::string message) {
    HostResult r;
    r.error_ = message.empty() ? std::string("unknown error") : std::move(message);
    return r;
  }

  bool ok() const { return value_.has_value(); }
  // Empty when ok().
  const std::string& error() const { return error_; }
  // Precondition: ok().
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  HostResult() = default;
  std::optional<T> value_;
  std::string error_;
};

// Success, or an error message.
class HostStatus final {
 public:
  HostStatus() = default;
  static HostStatus failure(std::string message) {
    HostStatus s;
    s.error_ = message.empty() ? std::string("unknown error") : std::move(message);
    return s;
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// A tensor owning its element bytes, sizes, dim order and strides. The
// etr::Tensor returned by tensor() points into this object's heap buffers:
// it stays valid across moves of the HostTensor and until it is destroyed.
class HostTensor final {
 public:
  // Zero-filled tensor. `dim_order` lists dimensions outermost first; empty
  // means the default (contiguous) order. Fails on an invalid dtype, a rank
  // above kTensorMaxDim, negative or oversized dims, or a dim order that is
  // not a permutation.
  static HostResult<HostTensor> zeros(ScalarType dtype, std::vector<int32_t> sizes,
                                      std::vector<uint8_t> dim_order = {},
                                      ShapeDynamism dynamism = ShapeDynamism::Static);
  // Tensor holding `nbytes` bytes copied from `data`, laid out in dim order.
  // Fails when nbytes does not equal the tensor's byte size.
  static HostResult<HostTensor> from_bytes(ScalarType dtype, std::vector<int32_t> sizes,
                                           const void* data, size_t nbytes,
                                           std::vector<uint8_t> dim_order = {});
  // Contiguous (default dim order) copy of any tensor, elements gathered in
  // logical (row-major) order through its strides.
  static HostResult<HostTensor> contiguous_copy(const Tensor& t);

  HostTensor(HostTensor&& other) noexcept;
  HostTensor& operator=(HostTensor&& other) noexcept;
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;
  ~HostTensor() = default;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }
  ScalarType dtype() const { return tensor_.dtype(); }
  Span<const int32_t> sizes() const { return tensor_.sizes(); }
  size_t nbytes() const { return tensor_.nbytes(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // Sets every element to one (1, 1.0, true). Fails for dtypes without a
  // plain representation of one (quantized, bit-packed, float8).
  HostStatus fill_ones();

 private:
  HostTensor() = default;
  void rebind(const Tensor& shape_source);

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int64_t> strides_;
  // Never empty, so data() is non-null even for zero-element tensors.
  std::vector<uint8_t> bytes_;
  Tensor tensor_;
};

// "[2, 3]"-style text of a tensor's sizes.
std::string shape_string(Span<const int32_t> sizes);

// Reads one element of `dtype` at `p` as a double (Half, BFloat16, integer
// and bool types included). False for dtypes without a scalar value.
bool element_to_double(ScalarType dtype, const void* p, double* out);

// Byte offset of the element with logical (row-major) index `linear`.
size_t element_offset(const Tensor& t, size_t linear);

}  // namespace etr
