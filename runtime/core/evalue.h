// EValue: one slot of a method's value table. Tags mirror the program
// format's value kinds.
//
// Lists follow the format's encoding: IntList items are *references* to Int
// values (so sizes computed at run time flow into ops), TensorList and
// OptionalTensorList items are references to Tensor (or None) values, while
// DoubleList and BoolList hold their elements inline.
#pragma once

#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etr {

enum class Tag : uint8_t {
  None = 0,
  Int,
  Double,
  Bool,
  String,
  Tensor,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

const char* to_string(Tag tag);

class EValue;

// A list of integers stored as references to Int values. get() reads the
// current integers into caller-provided scratch (allocated at method load).
class BoxedIntList final {
 public:
  BoxedIntList() = default;
  // Does not take ownership; `items` and `scratch` (both `size` long) must
  // outlive the list.
  BoxedIntList(EValue* const* items, int64_t* scratch, size_t size)
      : items_(items), scratch_(scratch), size_(size) {}
  size_t size() const { return size_; }
  Span<const int64_t> get() const;
  // The values the items refer to (the method's value table).
  EValue* const* items() const { return items_; }

 private:
  EValue* const* items_ = nullptr;
  int64_t* scratch_ = nullptr;
  size_t size_ = 0;
};

// A list of tensors stored as references to values. For the optional kind a
// null reference (or a None value) means "no tensor".
class BoxedTensorList final {
 public:
  BoxedTensorList() = default;
  // Does not take ownership; `items` must outlive the list.
  BoxedTensorList(EValue* const* items, size_t size) : items_(items), size_(size) {}
  size_t size() const { return size_; }
  // Element i, or nullptr for an absent optional element.
  Tensor* at(size_t i) const;
  Tensor& operator[](size_t i) const { return *at(i); }
  // The values the items refer to (null entries: absent optional tensors).
  EValue* const* items() const { return items_; }

 private:
  EValue* const* items_ = nullptr;
  size_t size_ = 0;
};

class EValue final {
 public:
  EValue() : tag_(Tag::None) { payload_.as_int = 0; }
  explicit EValue(int64_t v) : tag_(Tag::Int) { payload_.as_int = v; }
  explicit EValue(double v) : tag_(Tag::Double) { payload_.as_double = v; }
  explicit EValue(bool v) : tag_(Tag::Bool) { payload_.as_bool = v; }
  explicit EValue(StringView v) : tag_(Tag::String) { payload_.as_string = v; }
  // Does not take ownership; the tensor must outlive the value.
  explicit EValue(Tensor* t) : tag_(Tag::Tensor) { payload_.as_tensor = t; }
  explicit EValue(BoxedIntList v) : tag_(Tag::IntList) { payload_.as_int_list = v; }
  explicit EValue(Span<const double> v) : tag_(Tag::DoubleList) { payload_.as_double_list = v; }
  explicit EValue(Span<const bool> v) : tag_(Tag::BoolList) { payload_.as_bool_list = v; }
  EValue(BoxedTensorList v, bool optional)
      : tag_(optional ? Tag::OptionalTensorList : Tag::TensorList) {
    payload_.as_tensor_list = v;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_int_list() const { return tag_ == Tag::IntList; }
  bool is_double_list() const { return tag_ == Tag::DoubleList; }
  bool is_bool_list() const { return tag_ == Tag::BoolList; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  bool is_optional_tensor_list() const { return tag_ == Tag::OptionalTensorList; }
  // Int, Double or Bool: the kinds an ATen Scalar argument may take.
  bool is_scalar() const { return tag_ == Tag::Int || tag_ == Tag::Double || tag_ == Tag::Bool; }

  // Accessors: precondition is the matching tag (checked at method load, not here).
  int64_t to_int() const { return payload_.as_int; }
  double to_double() const { return payload_.as_double; }
  bool to_bool() const { return payload_.as_bool; }
  StringView to_string() const { return payload_.as_string; }
  Tensor& to_tensor() const { return *payload_.as_tensor; }
  Tensor* tensor_ptr() const { return payload_.as_tensor; }
  Span<const int64_t> to_int_list() const { return payload_.as_int_list.get(); }
  const BoxedIntList& boxed_int_list() const { return payload_.as_int_list; }
  Span<const double> to_double_list() const { return payload_.as_double_list; }
  Span<const bool> to_bool_list() const { return payload_.as_bool_list; }
  const BoxedTensorList& to_tensor_list() const { return payload_.as_tensor_list; }

  // Scalar as double / int64, whichever of Int, Double, Bool it holds.
  double scalar_as_double() const {
    return tag_ == Tag::Double ? payload_.as_double
           : tag_ == Tag::Bool ? (payload_.as_bool ? 1.0 : 0.0)
                               : static_cast<double>(payload_.as_int);
  }
  int64_t scalar_as_int() const {
    return tag_ == Tag::Int    ? payload_.as_int
           : tag_ == Tag::Bool ? (payload_.as_bool ? 1 : 0)
                               : static_cast<int64_t>(payload_.as_double);
  }

  // Runtime internals.
  void set_int(int64_t v) {
    tag_ = Tag::Int;
    payload_.as_int = v;
  }
  void set_double(double v) {
    tag_ = Tag::Double;
    payload_.as_double = v;
  }
  void set_bool(bool v) {
    tag_ = Tag::Bool;
    payload_.as_bool = v;
  }

 private:
  union Payload {
    Payload() : as_int(0) {}
    int64_t as_int;
    double as_double;
    bool as_bool;
    StringView as_string;
    Tensor* as_tensor;
    BoxedIntList as_int_list;
    Span<const double> as_double_list;
    Span<const bool> as_bool_list;
    BoxedTensorList as_tensor_list;
  };
  Tag tag_;
  Payload payload_;
};

inline Span<const int64_t> BoxedIntList::get() const {
  for (size_t i = 0; i < size_; ++i) scratch_[i] = items_[i]->to_int();
  return {scratch_, size_};
}

inline Tensor* BoxedTensorList::at(size_t i) const {
  const EValue* v = items_[i];
  return (v == nullptr || !v->is_tensor()) ? nullptr : v->tensor_ptr();
}

}  // namespace etr
