// Compatibility layer (extension/compat): the official EValue (None, Int,
// Double, Bool, String, Tensor) as a thin wrapper over etr::Value, which is
// what etr::Module takes and returns. Copies share the tensor. An EValue made
// from a TensorPtr keeps that TensorPtr alive; one made from a plain Tensor
// is a view, like the official one.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/assert.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "extension/module/value.h"

namespace executorch {
namespace runtime {

class EValue {
 public:
  Tag tag = Tag::None;

  EValue() = default;
  /* implicit */ EValue(executorch::aten::Tensor t);
  /* implicit */ EValue(const std::shared_ptr<executorch::aten::Tensor>& t);
  /* implicit */ EValue(std::shared_ptr<executorch::aten::Tensor>&& t)
      : EValue(static_cast<const std::shared_ptr<executorch::aten::Tensor>&>(t)) {}
  // Any other pointer-like object to a Tensor (a view: does not own it).
  template <typename T,
            typename = std::enable_if_t<
                !std::is_same<std::decay_t<T>, std::shared_ptr<executorch::aten::Tensor>>::value &&
                !std::is_same<std::decay_t<T>, EValue>::value &&
                std::is_convertible<decltype(*std::declval<T>()), executorch::aten::Tensor>::value>>
  /* implicit */ EValue(T&& ptr) : EValue(static_cast<executorch::aten::Tensor>(*ptr)) {}
  /* implicit */ EValue(int64_t i) : tag(Tag::Int), int_(i) {}
  /* implicit */ EValue(int i) : EValue(static_cast<int64_t>(i)) {}
  /* implicit */ EValue(double d) : tag(Tag::Double), double_(d) {}
  /* implicit */ EValue(bool b) : tag(Tag::Bool), bool_(b) {}
  EValue(const char* s, size_t size) : tag(Tag::String), string_(s, size) {}
  // A Scalar becomes an Int, Double or Bool value.
  /* implicit */ EValue(executorch::aten::Scalar s) {
    if (s.isBoolean()) {
      tag = Tag::Bool;
      bool_ = s.to<bool>();
    } else if (s.isFloatingPoint()) {
      tag = Tag::Double;
      double_ = s.to<double>();
    } else {
      tag = Tag::Int;
      int_ = s.to<int64_t>();
    }
  }

  EValue(const EValue& other);
  EValue(EValue&& other) noexcept;
  EValue& operator=(const EValue& other);
  EValue& operator=(EValue&& other) noexcept;
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

  // List accessors (views, valid while this EValue is); the wrong kind aborts.
  executorch::aten::ArrayRef<int64_t> toIntList() const {
    ET_CHECK_MSG(isIntList(), "EValue is not an int list.");
    return {lists_.ints.data(), lists_.ints.size()};
  }
  executorch::aten::ArrayRef<double> toDoubleList() const {
    ET_CHECK_MSG(isDoubleList(), "EValue is not a Double list.");
    return lists_.doubles;
  }
  executorch::aten::ArrayRef<bool> toBoolList() const {
    ET_CHECK_MSG(isBoolList(), "EValue is not a Bool list.");
    return lists_.bools;
  }
  executorch::aten::ArrayRef<executorch::aten::Tensor> toTensorList() const {
    ET_CHECK_MSG(isTensorList(), "EValue is not a Tensor list.");
    return {lists_.tensors.data(), lists_.tensors.size()};
  }
  executorch::aten::ArrayRef<std::optional<executorch::aten::Tensor>> toListOptionalTensor() const {
    ET_CHECK_MSG(isListOptionalTensor(), "EValue is not a list of optional Tensors.");
    return {lists_.optional_tensors.data(), lists_.optional_tensors.size()};
  }

  // Internal (extension/compat): list values viewing a method's values.
  static EValue int_list(std::vector<int64_t> items);
  static EValue double_list(executorch::aten::ArrayRef<double> items);
  static EValue bool_list(executorch::aten::ArrayRef<bool> items);
  static EValue tensor_list(std::vector<executorch::aten::Tensor> items);
  static EValue optional_tensor_list(std::vector<std::optional<executorch::aten::Tensor>> items);

  // Accessors: a value of another kind aborts (ET_CHECK), as in the
  // official runtime.
  int64_t toInt() const {
    ET_CHECK_MSG(isInt(), "EValue is not an int.");
    return int_;
  }
  double toDouble() const {
    ET_CHECK_MSG(isDouble(), "EValue is not a Double.");
    return double_;
  }
  bool toBool() const {
    ET_CHECK_MSG(isBool(), "EValue is not a Bool.");
    return bool_;
  }
  std::string_view toString() const {
    ET_CHECK_MSG(isString(), "EValue is not a String.");
    return string_;
  }
  executorch::aten::Tensor& toTensor() & {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor.");
    return tensor_;
  }
  const executorch::aten::Tensor& toTensor() const& {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor.");
    return tensor_;
  }
  executorch::aten::Tensor toTensor() && {
    ET_CHECK_MSG(isTensor(), "EValue is not a Tensor.");
    return tensor_;
  }
  executorch::aten::ScalarType toScalarType() const {
    return static_cast<executorch::aten::ScalarType>(toInt());
  }
  // An Int, Double or Bool value as a Scalar; another kind aborts.
  executorch::aten::Scalar toScalar() const {
    if (isDouble()) return executorch::aten::Scalar(double_);
    if (isInt()) return executorch::aten::Scalar(int_);
    ET_CHECK_MSG(isBool(), "EValue is not a Scalar.");
    return executorch::aten::Scalar(bool_);
  }

  // The value as a T (int64_t, double, bool, Tensor, std::string_view,
  // ScalarType, Scalar, MemoryFormat, Layout, Device, or a narrower
  // integer); the wrong kind aborts.
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

  // Internal (extension/compat): conversions to and from etr::Value.
  static EValue from_etr(::etr::Value value);
  ::etr::Value to_etr() const;

 private:
  void rebind();

  int64_t int_ = 0;
  double double_ = 0.0;
  bool bool_ = false;
  std::string string_;
  // The etr value holding the tensor (shared with copies), when there is one.
  ::etr::Value value_;
  // Keeps a TensorPtr (and so its data or deleter) alive.
  std::shared_ptr<const void> owner_;
  executorch::aten::Tensor tensor_;
  // List payloads (only the one matching the tag is used).
  struct Lists {
    std::vector<int64_t> ints;
    executorch::aten::ArrayRef<double> doubles;
    executorch::aten::ArrayRef<bool> bools;
    std::vector<executorch::aten::Tensor> tensors;
    std::vector<std::optional<executorch::aten::Tensor>> optional_tensors;
  };
  Lists lists_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::EValue;
using ::executorch::runtime::Tag;
}  // namespace executor
}  // namespace torch
