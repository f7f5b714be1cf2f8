// Compatibility layer (extension/compat): the official EValue, with the
// official layout (a tag and a payload union that code may read and write),
// made from and turned into etr::Value, which is what etr::Module takes and
// returns. A tensor payload is a view of an etr tensor; values this runtime
// makes (method inputs and outputs, kernel arguments) keep what their
// payload points to alive and share it with their copies, so the executor's
// objects are never copied. An EValue made from a TensorPtr keeps that
// TensorPtr alive; one made from a plain Tensor or an official pointer
// constructor is a view, like the official one.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/log.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "extension/module/value.h"

namespace executorch {
namespace runtime {

class EValue;

// A list value as the official runtime keeps it: pointers to the EValues of
// its items (`wrapped`, owned elsewhere) and an array of as many T that get()
// fills from them (`unwrapped`, owned by the caller). Does not own either.
template <typename T>
class BoxedEvalueList {
 public:
  BoxedEvalueList() = default;
  // `wrapped` and `unwrapped` must hold `size` entries and outlive the list;
  // a null array or a negative size aborts.
  BoxedEvalueList(EValue** wrapped, T* unwrapped, int size) {
    ET_CHECK_MSG(wrapped != nullptr || size == 0, "BoxedEvalueList: wrapped_vals cannot be null");
    ET_CHECK_MSG(unwrapped != nullptr || size == 0,
                 "BoxedEvalueList: unwrapped_vals cannot be null");
    ET_CHECK_MSG(size >= 0, "BoxedEvalueList: size cannot be negative (%d)", size);
    wrapped_vals_ = executorch::aten::ArrayRef<EValue*>(wrapped, static_cast<size_t>(size));
    unwrapped_vals_ = unwrapped;
  }
  // Reads each item's current value into the unwrapped array and views it.
  executorch::aten::ArrayRef<T> get() const;

 private:
  executorch::aten::ArrayRef<EValue*> wrapped_vals_;
  mutable T* unwrapped_vals_ = nullptr;
};

class EValue {
 public:
  // The official layout: `tag` says which member of `payload` is live.
  // Scalars are stored inline; strings and lists are pointers to objects
  // the caller owns (or, for values made by this runtime, that this EValue
  // keeps alive); a tensor is a view (executorch::aten::Tensor).
  union Payload {
    union TriviallyCopyablePayload {
      TriviallyCopyablePayload() : as_int(0) {}
      int64_t as_int;
      double as_double;
      bool as_bool;
      executorch::aten::ArrayRef<char>* as_string_ptr;
      BoxedEvalueList<int64_t>* as_int_list_ptr;
      executorch::aten::ArrayRef<double>* as_double_list_ptr;
      executorch::aten::ArrayRef<bool>* as_bool_list_ptr;
      BoxedEvalueList<executorch::aten::Tensor>* as_tensor_list_ptr;
      BoxedEvalueList<std::optional<executorch::aten::Tensor>>* as_list_optional_tensor_ptr;
    } copyable_union;
    executorch::aten::Tensor as_tensor;

    Payload() : copyable_union() {}
    ~Payload() {}
  } payload;
  Tag tag = Tag::None;

  EValue() = default;
  /* implicit */ EValue(executorch::aten::Tensor t);
  /* implicit */ EValue(const std::shared_ptr<executorch::aten::Tensor>& t);
  /* implicit */ EValue(std::shared_ptr<executorch::aten::Tensor>&& t)
      : EValue(static_cast<const std::shared_ptr<executorch::aten::Tensor>&>(t)) {}
  // Any other pointer-like object to a Tensor (a view: does not own it); a
  // null one aborts.
  template <typename T,
            typename = std::enable_if_t<
                !std::is_same<std::decay_t<T>, std::shared_ptr<executorch::aten::Tensor>>::value &&
                !std::is_same<std::decay_t<T>, EValue>::value &&
                std::is_convertible<decltype(*std::declval<T>()), executorch::aten::Tensor>::value>>
  /* implicit */ EValue(T&& ptr) : tag(Tag::Tensor) {
    ET_CHECK_MSG(ptr != nullptr, "Pointer is null.");
    init_tensor(static_cast<executorch::aten::Tensor>(*ptr));
  }
  /* implicit */ EValue(int64_t i) : tag(Tag::Int) { payload.copyable_union.as_int = i; }
  /* implicit */ EValue(int i) : EValue(static_cast<int64_t>(i)) {}
  /* implicit */ EValue(double d) : tag(Tag::Double) { payload.copyable_union.as_double = d; }
  /* implicit */ EValue(bool b) : tag(Tag::Bool) { payload.copyable_union.as_bool = b; }
  // A copy of the `size` chars at `s` (kept alive by this EValue and its copies).
  EValue(const char* s, size_t size);
  // The official pointer constructors: the pointee must outlive the EValue;
  // a null pointer aborts.
  /* implicit */ EValue(executorch::aten::ArrayRef<char>* s) : tag(Tag::String) {
    ET_CHECK_MSG(s != nullptr, "ArrayRef<char> pointer cannot be null");
    payload.copyable_union.as_string_ptr = s;
  }
  /* implicit */ EValue(BoxedEvalueList<int64_t>* list) : tag(Tag::ListInt) {
    ET_CHECK_MSG(list != nullptr, "BoxedEvalueList<int64_t> pointer cannot be null");
    payload.copyable_union.as_int_list_ptr = list;
  }
  /* implicit */ EValue(executorch::aten::ArrayRef<double>* list) : tag(Tag::ListDouble) {
    ET_CHECK_MSG(list != nullptr, "ArrayRef<double> pointer cannot be null");
    payload.copyable_union.as_double_list_ptr = list;
  }
  /* implicit */ EValue(executorch::aten::ArrayRef<bool>* list) : tag(Tag::ListBool) {
    ET_CHECK_MSG(list != nullptr, "ArrayRef<bool> pointer cannot be null");
    payload.copyable_union.as_bool_list_ptr = list;
  }
  /* implicit */ EValue(BoxedEvalueList<executorch::aten::Tensor>* list) : tag(Tag::ListTensor) {
    ET_CHECK_MSG(list != nullptr, "BoxedEvalueList<Tensor> pointer cannot be null");
    payload.copyable_union.as_tensor_list_ptr = list;
  }
  /* implicit */ EValue(BoxedEvalueList<std::optional<executorch::aten::Tensor>>* list)
      : tag(Tag::ListOptionalTensor) {
    ET_CHECK_MSG(list != nullptr, "BoxedEvalueList<optional<Tensor>> pointer cannot be null");
    payload.copyable_union.as_list_optional_tensor_ptr = list;
  }
  // A Scalar becomes an Int, Double or Bool value.
  /* implicit */ EValue(executorch::aten::Scalar s) {
    if (s.isBoolean()) {
      tag = Tag::Bool;
      payload.copyable_union.as_bool = s.to<bool>();
    } else if (s.isFloatingPoint()) {
      tag = Tag::Double;
      payload.copyable_union.as_double = s.to<double>();
    } else {
      tag = Tag::Int;
      payload.copyable_union.as_int = s.to<int64_t>();
    }
  }

  // Copies share what the payload points to.
  EValue(const EValue& other) : tag(other.tag), keep_(other.keep_), invalid_(other.invalid_) {
    copy_payload(other);
  }
  EValue(EValue&& other) noexcept
      : tag(other.tag), keep_(std::move(other.keep_)), invalid_(other.invalid_) {
    copy_payload(other);
  }
  EValue& operator=(const EValue& other) {
    if (this != &other) {
      tag = other.tag;
      keep_ = other.keep_;
      invalid_ = other.invalid_;
      copy_payload(other);
    }
    return *this;
  }
  EValue& operator=(EValue&& other) noexcept {
    if (this != &other) {
      tag = other.tag;
      keep_ = std::move(other.keep_);
      invalid_ = other.invalid_;
      copy_payload(other);
    }
    return *this;
  }
  ~EValue() = default;

  bool isNone() const { return tag == Tag::None; }
  bool isInt() const { return tag == Tag::Int; }
  bool isDouble() const { return tag == Tag::Double; }
  bool isBool() const { return tag == Tag::Bool; }
  bool isString() const { return tag == Tag::String; }
  bool isTensor() const { return tag == Tag::Tensor; }
  bool isScalar() const { return isInt() || isDouble() || isBool(); }
  bool isIntList() const { return tag == Tag::ListInt; }
  bool isDoubleList() const { return tag == Tag::ListDouble; }
  bool isBoolList() const { return tag == Tag::ListBool; }
  bool isTensorList() const { return tag == Tag::ListTensor; }
  bool isListOptionalTensor() const { return tag == Tag::ListOptionalTensor; }

  // List accessors (views, valid while the list's storage is); the wrong
  // kind or a null list pointer aborts.
  executorch::aten::ArrayRef<int64_t> toIntList() const {
    ET_CHECK_MSG(isIntList(), "EValue is not an int list.");
    ET_CHECK_MSG(payload.copyable_union.as_int_list_ptr != nullptr,
                 "EValue int list pointer is null.");
    return payload.copyable_union.as_int_list_ptr->get();
  }
  executorch::aten::ArrayRef<double> toDoubleList() const {
    ET_CHECK_MSG(isDoubleList(), "EValue is not a Double list.");
    ET_CHECK_MSG(payload.copyable_union.as_double_list_ptr != nullptr,
                 "EValue double list pointer is null.");
    return *payload.copyable_union.as_double_list_ptr;
  }
  executorch::aten::ArrayRef<bool> toBoolList() const {
    ET_CHECK_MSG(isBoolList(), "EValue is not a Bool list.");
    ET_CHECK_MSG(payload.copyable_union.as_bool_list_ptr != nullptr,
                 "EValue bool list pointer is null.");
    return *payload.copyable_union.as_bool_list_ptr;
  }
  executorch::aten::ArrayRef<executorch::aten::Tensor> toTensorList() const {
    ET_CHECK_MSG(isTensorList(), "EValue is not a Tensor list.");
    ET_CHECK_MSG(payload.copyable_union.as_tensor_list_ptr != nullptr,
                 "EValue tensor list pointer is null.");
    return payload.copyable_union.as_tensor_list_ptr->get();
  }
  executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>> toListOptionalTensor() const {
    ET_CHECK_MSG(isListOptionalTensor(), "EValue is not a list of optional Tensors.");
    ET_CHECK_MSG(payload.copyable_union.as_list_optional_tensor_ptr != nullptr,
                 "EValue optional tensor list pointer is null.");
    return payload.copyable_union.as_list_optional_tensor_ptr->get();
  }

  // Internal (extension/compat): list values over copies of `items` (their
  // storage kept alive by the EValue and its copies); double and bool lists
  // view `items`.
  static EValue int_list(std::vector<int64_t> items);
  static EValue double_list(executorch::aten::ArrayRef<double> items);
  static EValue bool_list(executorch::aten::ArrayRef<bool> items);
  static EValue tensor_list(std::vector<executorch::aten::Tensor> items);
  static EValue optional_tensor_list(std::vector<std::optional<executorch::aten::Tensor>> items);

  // Accessors: a value of another kind aborts (ET_CHECK), as in the
  // official runtime.
  int64_t toInt() const {
    ET_CHECK_MSG(isInt(), "EValue is not an int.");
    return payload.copyable_union.as_int;
  }
  double toDouble() const {
    ET_CHECK_MSG(isDouble(), "EValue is not a Double.");
    return payload.copyable_union.as_double;
  }
  bool toBool() const {
    ET_CHECK_MSG(isBool(), "EValue is not a Bool.");
    return payload.copyable_union.as_bool;
  }
  std::string_view toString() const {
    ET_CHECK_MSG(isString(), "EValue is not a String.");
    const executorch::aten::ArrayRef<char>* s = payload.copyable_union.as_string_ptr;
    ET_CHECK_MSG(s != nullptr, "EValue string pointer is null.");
    return std::string_view(s->data(), s->size());
  }
  executorch::aten::Tensor& toTensor() & {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor.");
    return payload.as_tensor;
  }
  const executorch::aten::Tensor& toTensor() const& {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor.");
    return payload.as_tensor;
  }
  executorch::aten::Tensor toTensor() && {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor.");
    return payload.as_tensor;
  }
  // The tensor, or InvalidType (logged) for another kind.
  Result<executorch::aten::Tensor> tryToTensor() const {
    if (!isTensor()) {
      ET_LOG(Error, "EValue is not a Tensor (tag %d)", static_cast<int>(tag));
      return Error::InvalidType;
    }
    return payload.as_tensor;
  }
  executorch::aten::ScalarType toScalarType() const {
    return static_cast<executorch::aten::ScalarType>(toInt());
  }
  // An Int, Double or Bool value as a Scalar; another kind aborts.
  executorch::aten::Scalar toScalar() const {
    if (isDouble()) return executorch::aten::Scalar(payload.copyable_union.as_double);
    if (isInt()) return executorch::aten::Scalar(payload.copyable_union.as_int);
    ET_CHECK_MSG(isBool(), "EValue is not a Scalar.");
    return executorch::aten::Scalar(payload.copyable_union.as_bool);
  }

  // The value as a T (int64_t, double, bool, Tensor, std::string_view,
  // ScalarType, Scalar, MemoryFormat, Layout, Device, a list as an
  // ArrayRef, or a narrower integer); the wrong kind aborts.
  template <typename T>
  T to() const {
    if constexpr (std::is_same<T, executorch::aten::Tensor>::value) {
      return toTensor();
    } else if constexpr (std::is_same<T, bool>::value) {
      return toBool();
    } else if constexpr (std::is_same<T, double>::value || std::is_same<T, float>::value) {
      return static_cast<T>(toDouble());
    } else if constexpr (std::is_same<T, executorch::aten::ScalarType>::value) {
      return toScalarType();
    } else if constexpr (std::is_same<T, executorch::aten::Scalar>::value) {
      return toScalar();
    } else if constexpr (std::is_same<T, executorch::aten::MemoryFormat>::value ||
                         std::is_same<T, executorch::aten::Layout>::value) {
      return static_cast<T>(toInt());
    } else if constexpr (std::is_same<T, executorch::aten::Device>::value) {
      return executorch::aten::Device(static_cast<executorch::aten::DeviceType>(toInt()), 0);
    } else if constexpr (std::is_same<T, std::string_view>::value) {
      return toString();
    } else if constexpr (std::is_same<T, executorch::aten::ArrayRef<int64_t>>::value) {
      return toIntList();
    } else if constexpr (std::is_same<T, executorch::aten::ArrayRef<double>>::value) {
      return toDoubleList();
    } else if constexpr (std::is_same<T, executorch::aten::ArrayRef<bool>>::value) {
      return toBoolList();
    } else if constexpr (std::is_same<
                             T, executorch::aten::ArrayRef<executorch::aten::Tensor>>::value) {
      return toTensorList();
    } else if constexpr (std::is_same<T, executorch::aten::ArrayRef<
                                             std::optional<executorch::aten::Tensor>>>::value) {
      return toListOptionalTensor();
    } else {
      static_assert(std::is_integral<T>::value, "EValue::to<T>: unsupported type");
      return static_cast<T>(toInt());
    }
  }
  // None as std::nullopt, else to<T>().
  template <typename T>
  std::optional<T> toOptional() const {
    if (isNone()) return std::nullopt;
    return to<T>();
  }
  // None as std::nullopt, a Tensor as itself, another kind InvalidType.
  template <typename T>
  Result<std::optional<T>> tryToOptional() const {
    if (isNone()) return std::optional<T>();
    if constexpr (std::is_same<T, executorch::aten::Tensor>::value) {
      Result<executorch::aten::Tensor> t = tryToTensor();
      if (!t.ok()) return t.error();
      return std::optional<T>(*t);
    } else {
      return std::optional<T>(to<T>());
    }
  }

  // Internal (extension/compat): conversions to and from etr::Value.
  static EValue from_etr(::etr::Value value);
  ::etr::Value to_etr() const;

 private:
  void init_tensor(const executorch::aten::Tensor& t);
  void copy_payload(const EValue& other) {
    if (other.tag == Tag::Tensor) {
      new (&payload.as_tensor) executorch::aten::Tensor(other.payload.as_tensor);
    } else {
      payload.copyable_union = other.payload.copyable_union;
    }
  }

  // What keeps the payload's referents alive when this runtime made them (an
  // etr value holding the tensor, a TensorPtr, a string's or list's
  // storage); shared by copies. Empty for the official pointer constructors.
  std::shared_ptr<const void> keep_;
  // Made from a failed TensorPtr maker (a null TensorPtr): a Module call
  // given it fails with InvalidArgument.
  bool invalid_ = false;
};

template <typename T>
executorch::aten::ArrayRef<T> BoxedEvalueList<T>::get() const {
  for (size_t i = 0; i < wrapped_vals_.size(); ++i) {
    ET_CHECK_MSG(wrapped_vals_[i] != nullptr, "BoxedEvalueList: item %zu is null", i);
    if constexpr (std::is_same<T, std::optional<executorch::aten::Tensor>>::value) {
      unwrapped_vals_[i] = wrapped_vals_[i]->template toOptional<executorch::aten::Tensor>();
    } else {
      unwrapped_vals_[i] = wrapped_vals_[i]->template to<T>();
    }
  }
  return executorch::aten::ArrayRef<T>(unwrapped_vals_, wrapped_vals_.size());
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BoxedEvalueList;
using ::executorch::runtime::EValue;
using ::executorch::runtime::Tag;
}  // namespace executor
}  // namespace torch
