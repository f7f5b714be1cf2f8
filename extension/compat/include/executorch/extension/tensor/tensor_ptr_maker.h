// Compatibility layer (extension/compat): for_blob (a builder for a tensor
// over caller data), from_blob, and the allocating makers (empty, full,
// zeros, ones, scalar_tensor, rand, randn, randint, their _like and _strided
// forms) under their official names. A typed pointer (float*, int8_t*, ...)
// gives the dtype of for_blob and from_blob unless one is given; a void*
// defaults to Float. Contract violations abort as described in tensor_ptr.h.
#pragma once

#include <executorch/extension/tensor/tensor_ptr.h>

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace executorch {
namespace extension {

namespace internal {
// True when T names a dtype (CppTypeToScalarType<T> is defined).
template <typename T, typename = void>
struct has_scalar_type : std::false_type {};
template <typename T>
struct has_scalar_type<T, std::void_t<decltype(runtime::CppTypeToScalarType<T>::value)>>
    : std::true_type {};
}  // namespace internal

// Builds a TensorPtr over `data` (not copied). Each setter returns the
// builder; make_tensor_ptr() (or conversion to TensorPtr) finishes it.
class TensorPtrMaker final {
 public:
  TensorPtrMaker(TensorPtrMaker&&) = default;
  TensorPtrMaker& operator=(TensorPtrMaker&&) = default;
  TensorPtrMaker(const TensorPtrMaker&) = delete;
  TensorPtrMaker& operator=(const TensorPtrMaker&) = delete;

  TensorPtrMaker& type(executorch::aten::ScalarType type) & {
    type_ = type;
    return *this;
  }
  TensorPtrMaker&& type(executorch::aten::ScalarType type) && {
    return std::move(this->type(type));
  }
  TensorPtrMaker& dim_order(std::vector<executorch::aten::DimOrderType> dim_order) & {
    dim_order_ = std::move(dim_order);
    return *this;
  }
  TensorPtrMaker&& dim_order(std::vector<executorch::aten::DimOrderType> dim_order) && {
    return std::move(this->dim_order(std::move(dim_order)));
  }
  TensorPtrMaker& strides(std::vector<executorch::aten::StridesType> strides) & {
    strides_ = std::move(strides);
    return *this;
  }
  TensorPtrMaker&& strides(std::vector<executorch::aten::StridesType> strides) && {
    return std::move(this->strides(std::move(strides)));
  }
  TensorPtrMaker& dynamism(executorch::aten::TensorShapeDynamism dynamism) & {
    dynamism_ = dynamism;
    return *this;
  }
  TensorPtrMaker&& dynamism(executorch::aten::TensorShapeDynamism dynamism) && {
    return std::move(this->dynamism(dynamism));
  }
  // Called with the data pointer when the last TensorPtr goes away.
  TensorPtrMaker& deleter(std::function<void(void*)> deleter) & {
    deleter_ = std::move(deleter);
    return *this;
  }
  TensorPtrMaker&& deleter(std::function<void(void*)> deleter) && {
    return std::move(this->deleter(std::move(deleter)));
  }
  TensorPtrMaker& device(executorch::aten::Device device) & {
    device_ = device;
    return *this;
  }
  TensorPtrMaker&& device(executorch::aten::Device device) && {
    return std::move(this->device(device));
  }

  TensorPtr make_tensor_ptr() && {
    return ::executorch::extension::make_tensor_ptr(std::move(sizes_), data_, std::move(dim_order_),
                                                    std::move(strides_), type_, device_, dynamism_,
                                                    std::move(deleter_));
  }
  operator TensorPtr() && { return std::move(*this).make_tensor_ptr(); }  // NOLINT

 private:
  TensorPtrMaker(void* data, std::vector<executorch::aten::SizesType> sizes,
                 executorch::aten::ScalarType type)
      : sizes_(std::move(sizes)), data_(data), type_(type) {}

  friend TensorPtrMaker for_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                                 executorch::aten::ScalarType type);

  std::vector<executorch::aten::SizesType> sizes_;
  std::vector<executorch::aten::StridesType> strides_;
  std::vector<executorch::aten::DimOrderType> dim_order_;
  std::function<void(void*)> deleter_ = nullptr;
  void* data_ = nullptr;
  executorch::aten::ScalarType type_ = executorch::aten::ScalarType::Float;
  executorch::aten::TensorShapeDynamism dynamism_ =
      executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND;
  executorch::aten::Device device_{executorch::aten::DeviceType::CPU, 0};
};

inline TensorPtrMaker for_blob(
    void* data, std::vector<executorch::aten::SizesType> sizes,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return TensorPtrMaker(data, std::move(sizes), type);
}

// A typed pointer gives the dtype.
template <typename T, typename std::enable_if<internal::has_scalar_type<T>::value, int>::type = 0>
inline TensorPtrMaker for_blob(T* data, std::vector<executorch::aten::SizesType> sizes) {
  return for_blob(static_cast<void*>(data), std::move(sizes),
                  runtime::CppTypeToScalarType<T>::value);
}

// A tensor over `data` (not copied: it must outlive the tensor).
inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                           executorch::aten::Device device = executorch::aten::DeviceType::CPU,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type).device(device).dynamism(dynamism).make_tensor_ptr();
}

template <typename T, typename std::enable_if<internal::has_scalar_type<T>::value, int>::type = 0>
inline TensorPtr from_blob(T* data, std::vector<executorch::aten::SizesType> sizes) {
  return from_blob(static_cast<void*>(data), std::move(sizes),
                   runtime::CppTypeToScalarType<T>::value);
}

inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           std::vector<executorch::aten::StridesType> strides,
                           executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                           executorch::aten::Device device = executorch::aten::DeviceType::CPU,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .device(device)
      .dynamism(dynamism)
      .make_tensor_ptr();
}

template <typename T, typename std::enable_if<internal::has_scalar_type<T>::value, int>::type = 0>
inline TensorPtr from_blob(T* data, std::vector<executorch::aten::SizesType> sizes,
                           std::vector<executorch::aten::StridesType> strides) {
  return from_blob(static_cast<void*>(data), std::move(sizes), std::move(strides),
                   runtime::CppTypeToScalarType<T>::value);
}

// With a deleter, called with `data` when the last TensorPtr goes away.
inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           executorch::aten::ScalarType type, executorch::aten::Device device,
                           std::function<void(void*)>&& deleter,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .device(device)
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           std::vector<executorch::aten::StridesType> strides,
                           executorch::aten::ScalarType type, executorch::aten::Device device,
                           std::function<void(void*)>&& deleter,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return for_blob(data, std::move(sizes), type)
      .strides(std::move(strides))
      .device(device)
      .deleter(std::move(deleter))
      .dynamism(dynamism)
      .make_tensor_ptr();
}

// ---- Allocating makers (the TensorPtr owns the buffer) -----------------------

// Zero-filled: etr never hands out uninitialized memory, so empty() and
// zeros() give the same contents.
TensorPtr empty_strided(std::vector<executorch::aten::SizesType> sizes,
                        std::vector<executorch::aten::StridesType> strides,
                        executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                        executorch::aten::TensorShapeDynamism dynamism =
                            executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr empty(std::vector<executorch::aten::SizesType> sizes,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                       executorch::aten::TensorShapeDynamism dynamism =
                           executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return empty_strided(std::move(sizes), {}, type, dynamism);
}

// Every element set to `fill_value` converted to `type`.
TensorPtr full_strided(std::vector<executorch::aten::SizesType> sizes,
                       std::vector<executorch::aten::StridesType> strides,
                       executorch::aten::Scalar fill_value,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                       executorch::aten::TensorShapeDynamism dynamism =
                           executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr full(std::vector<executorch::aten::SizesType> sizes,
                      executorch::aten::Scalar fill_value,
                      executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                      executorch::aten::TensorShapeDynamism dynamism =
                          executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_strided(std::move(sizes), {}, fill_value, type, dynamism);
}

inline TensorPtr scalar_tensor(
    executorch::aten::Scalar value,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return full({}, value, type, executorch::aten::TensorShapeDynamism::STATIC);
}

inline TensorPtr zeros(std::vector<executorch::aten::SizesType> sizes,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                       executorch::aten::TensorShapeDynamism dynamism =
                           executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full(std::move(sizes), 0, type, dynamism);
}

inline TensorPtr ones(std::vector<executorch::aten::SizesType> sizes,
                      executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                      executorch::aten::TensorShapeDynamism dynamism =
                          executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full(std::move(sizes), 1, type, dynamism);
}

// Uniform in [0, 1) (an integral dtype therefore holds zeros).
TensorPtr rand_strided(std::vector<executorch::aten::SizesType> sizes,
                       std::vector<executorch::aten::StridesType> strides,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                       executorch::aten::TensorShapeDynamism dynamism =
                           executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr rand(std::vector<executorch::aten::SizesType> sizes,
                      executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                      executorch::aten::TensorShapeDynamism dynamism =
                          executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return rand_strided(std::move(sizes), {}, type, dynamism);
}

// Standard normal.
TensorPtr randn_strided(std::vector<executorch::aten::SizesType> sizes,
                        std::vector<executorch::aten::StridesType> strides,
                        executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                        executorch::aten::TensorShapeDynamism dynamism =
                            executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr randn(std::vector<executorch::aten::SizesType> sizes,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                       executorch::aten::TensorShapeDynamism dynamism =
                           executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randn_strided(std::move(sizes), {}, type, dynamism);
}

// Uniform integers in [low, high).
TensorPtr randint_strided(int64_t low, int64_t high, std::vector<executorch::aten::SizesType> sizes,
                          std::vector<executorch::aten::StridesType> strides,
                          executorch::aten::ScalarType type = executorch::aten::ScalarType::Int,
                          executorch::aten::TensorShapeDynamism dynamism =
                              executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr randint(int64_t low, int64_t high, std::vector<executorch::aten::SizesType> sizes,
                         executorch::aten::ScalarType type = executorch::aten::ScalarType::Int,
                         executorch::aten::TensorShapeDynamism dynamism =
                             executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return randint_strided(low, high, std::move(sizes), {}, type, dynamism);
}

// The _like forms take `other`'s sizes and strides, and its dtype unless
// `type` is given (etr's ScalarType has no Undefined, so "not given" is
// std::nullopt).
namespace internal {
inline std::vector<executorch::aten::SizesType> sizes_of(const TensorPtr& t) {
  ET_CHECK_MSG(t != nullptr, "the source TensorPtr is null");
  return {t->sizes().begin(), t->sizes().end()};
}
inline std::vector<executorch::aten::StridesType> strides_of(const TensorPtr& t) {
  return {t->strides().begin(), t->strides().end()};
}
}  // namespace internal

inline TensorPtr empty_like(const TensorPtr& other,
                            std::optional<executorch::aten::ScalarType> type = std::nullopt,
                            executorch::aten::TensorShapeDynamism dynamism =
                                executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  auto sizes = internal::sizes_of(other);
  return empty_strided(std::move(sizes), internal::strides_of(other),
                       type.value_or(other->scalar_type()), dynamism);
}

inline TensorPtr full_like(const TensorPtr& other, executorch::aten::Scalar fill_value,
                           std::optional<executorch::aten::ScalarType> type = std::nullopt,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  auto sizes = internal::sizes_of(other);
  return full_strided(std::move(sizes), internal::strides_of(other), fill_value,
                      type.value_or(other->scalar_type()), dynamism);
}

inline TensorPtr zeros_like(const TensorPtr& other,
                            std::optional<executorch::aten::ScalarType> type = std::nullopt,
                            executorch::aten::TensorShapeDynamism dynamism =
                                executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_like(other, 0, type, dynamism);
}

inline TensorPtr ones_like(const TensorPtr& other,
                           std::optional<executorch::aten::ScalarType> type = std::nullopt,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return full_like(other, 1, type, dynamism);
}

inline TensorPtr rand_like(const TensorPtr& other,
                           std::optional<executorch::aten::ScalarType> type = std::nullopt,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  auto sizes = internal::sizes_of(other);
  return rand_strided(std::move(sizes), internal::strides_of(other),
                      type.value_or(other->scalar_type()), dynamism);
}

inline TensorPtr randn_like(const TensorPtr& other,
                            std::optional<executorch::aten::ScalarType> type = std::nullopt,
                            executorch::aten::TensorShapeDynamism dynamism =
                                executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  auto sizes = internal::sizes_of(other);
  return randn_strided(std::move(sizes), internal::strides_of(other),
                       type.value_or(other->scalar_type()), dynamism);
}

inline TensorPtr randint_like(const TensorPtr& other, int64_t low, int64_t high,
                              std::optional<executorch::aten::ScalarType> type = std::nullopt,
                              executorch::aten::TensorShapeDynamism dynamism =
                                  executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  auto sizes = internal::sizes_of(other);
  return randint_strided(low, high, std::move(sizes), internal::strides_of(other),
                         type.value_or(other->scalar_type()), dynamism);
}

}  // namespace extension
}  // namespace executorch
