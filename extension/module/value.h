// Values that go in and out of etr::Module: tensors (owned or borrowed),
// Int, Double, Bool, String and None, with one-line tensor helpers.
//
//   std::vector<float> data = {1, 2, 3, 4};
//   auto outs = module.forward({etr::make_tensor({2, 2}, data)});        // copies data
//   auto outs2 = module.forward({etr::make_tensor({2, 2}, data.data())});  // borrows data
//
// Desktop extension: heap and standard library, no exceptions. A Value is
// cheap to copy: copies share the tensor (like torch.Tensor), and an output
// tensor is owned by its Values alone (see module.h for the output rule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/tensor.h"

namespace etr {

// A tensor over caller-owned element bytes: owns only its shape metadata.
// Does not take ownership of the data; it must outlive every use of the
// tensor (for a Module input: the execute call it is passed to).
class BorrowedTensor final {
 public:
  // View of `data` laid out in `dim_order` (empty: the default, contiguous
  // order). Fails with InvalidType for an invalid dtype, InvalidArgument for
  // a null `data` with a nonzero element count, a rank above kTensorMaxDim,
  // negative sizes or a dim order that is not a permutation, and
  // MemoryAllocationFailed when the byte size overflows.
  static Result<BorrowedTensor> wrap(ScalarType dtype, std::vector<int32_t> sizes, void* data,
                                     std::vector<uint8_t> dim_order = {});

  BorrowedTensor(BorrowedTensor&& other) noexcept;
  BorrowedTensor& operator=(BorrowedTensor&&) = delete;
  BorrowedTensor(const BorrowedTensor&) = delete;
  BorrowedTensor& operator=(const BorrowedTensor&) = delete;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  BorrowedTensor() = default;
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int64_t> strides_;
  Tensor tensor_;
};

class Value final {
 public:
  Value() = default;                     // None
  Value(HostTensor t);                   // NOLINT: implicit by design
  Value(BorrowedTensor t);               // NOLINT
  Value(std::shared_ptr<HostTensor> t);  // NOLINT
  // A failed tensor helper: the Value records the error, and a Module call
  // given it fails with that error naming the input index.
  Value(Result<HostTensor>&& t);                                      // NOLINT
  Value(Result<BorrowedTensor>&& t);                                  // NOLINT
  Value(int64_t v) : tag_(Tag::Int), int_(v) {}                       // NOLINT
  Value(int v) : Value(static_cast<int64_t>(v)) {}                    // NOLINT
  Value(double v) : tag_(Tag::Double), double_(v) {}                  // NOLINT
  Value(bool v) : tag_(Tag::Bool), bool_(v) {}                        // NOLINT
  Value(std::string v) : tag_(Tag::String), string_(std::move(v)) {}  // NOLINT

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_string() const { return tag_ == Tag::String; }
  // Ok, or the error of the helper this Value was built from.
  Error error() const { return error_; }

  // Accessors: precondition is the matching tag.
  const Tensor& tensor() const;
  Tensor& mutable_tensor();
  // The owning tensor (outputs and make_tensor(sizes, vector) inputs), or
  // nullptr for a borrowed tensor or a non-tensor value.
  const HostTensor* host_tensor() const { return owned_.get(); }
  int64_t to_int() const { return int_; }
  double to_double() const { return double_; }
  bool to_bool() const { return bool_; }
  const std::string& to_string() const { return string_; }

  // Tensor elements (storage order) read as T; empty when this is not a
  // tensor or sizeof(T) differs from the element size (logged).
  template <typename T>
  std::vector<T> values() const;

 private:
  Tag tag_ = Tag::None;
  Error error_ = Error::Ok;
  int64_t int_ = 0;
  double double_ = 0.0;
  bool bool_ = false;
  std::string string_;
  std::shared_ptr<HostTensor> owned_;
  std::shared_ptr<BorrowedTensor> borrowed_;
};

// A tensor owning a copy of `values` (row-major), dtype from T (float,
// double, int64_t, int32_t, int16_t, int8_t, uint8_t, bool). Fails with
// InvalidArgument when values.size() is not the element count of `sizes`
// (see HostTensor::from_values).
template <typename T>
Result<HostTensor> make_tensor(std::vector<int32_t> sizes, const std::vector<T>& values) {
  return HostTensor::from_values<T>(std::move(sizes), values);
}

// A contiguous tensor over caller memory (no copy); see BorrowedTensor.
template <typename T>
Result<BorrowedTensor> make_tensor(std::vector<int32_t> sizes, T* data) {
  static_assert(!std::is_same<T, bool>::value || sizeof(bool) == 1, "one byte per bool");
  return BorrowedTensor::wrap(internal::host_dtype_of<std::remove_const_t<T>>(), std::move(sizes),
                              const_cast<std::remove_const_t<T>*>(data));
}

template <typename T>
std::vector<T> Value::values() const {
  if (owned_ != nullptr) return owned_->values<T>();
  if (borrowed_ == nullptr) return {};
  Result<HostTensor> copy = HostTensor::contiguous_copy(borrowed_->tensor());
  if (!copy.ok()) return {};
  return copy->values<T>();
}

}  // namespace etr
