// Compatibility layer (extension/compat): the official TensorPtr
// (std::shared_ptr<executorch::aten::Tensor>) and make_tensor_ptr, over
// etr::HostTensor (owned data) and etr::BorrowedTensor (caller data).
//
// Where the official functions abort (a data size that does not match the
// shape, an unsupported cast, strides that are not the contiguous ones for the
// dim order), these log the reason and return nullptr; a Module call given a
// null TensorPtr fails with Error::InvalidArgument. Shapes are static (the
// dynamism argument is accepted and ignored).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace executorch {
namespace extension {

using TensorPtr = std::shared_ptr<executorch::aten::Tensor>;

namespace internal {
// A TensorPtr owning `bytes` (copied) laid out in `dim_order`, checked
// against `strides` when given.
TensorPtr make_owned(std::vector<executorch::aten::SizesType> sizes, const void* bytes,
                     size_t nbytes, std::vector<executorch::aten::DimOrderType> dim_order,
                     std::vector<executorch::aten::StridesType> strides,
                     executorch::aten::ScalarType type);
// `count` values of `from` converted to `to` (Byte, Char, Short, Int, Long,
// Float, Double, Bool); empty with an error logged for other types.
std::vector<uint8_t> cast_elements(const void* data, size_t count,
                                   executorch::aten::ScalarType from,
                                   executorch::aten::ScalarType to, bool* ok);
}  // namespace internal

// A tensor over `data` (not copied; it must outlive the tensor). The deleter,
// when given, is called with `data` when the last TensorPtr goes away.
TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data,
    std::vector<executorch::aten::DimOrderType> dim_order,
    std::vector<executorch::aten::StridesType> strides,
    const executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    const executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr);

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data,
    const executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    const executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
    std::function<void(void*)> deleter = nullptr) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, dynamism, std::move(deleter));
}

// A tensor owning a copy of `data`, of the dtype of T or cast to `type`.
template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes,
                                 std::vector<T> data,
                                 std::vector<executorch::aten::DimOrderType> dim_order = {},
                                 std::vector<executorch::aten::StridesType> strides = {},
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  (void)dynamism;
  std::vector<uint8_t> widened;  // std::vector<bool> is bit-packed
  const void* bytes = data.data();
  if constexpr (std::is_same<T, bool>::value) {
    widened.assign(data.begin(), data.end());
    bytes = widened.data();
  }
  if (type != deduced_type) {
    bool ok = false;
    std::vector<uint8_t> cast =
        internal::cast_elements(bytes, data.size(), deduced_type, type, &ok);
    if (!ok) return nullptr;
    return internal::make_owned(std::move(sizes), cast.data(), cast.size(), std::move(dim_order),
                                std::move(strides), type);
  }
  return internal::make_owned(std::move(sizes), bytes, data.size() * sizeof(T),
                              std::move(dim_order), std::move(strides), type);
}

// A 1-D tensor owning a copy of `data`.
template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::vector<T> data,
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<executorch::aten::SizesType> sizes{executorch::aten::SizesType(data.size())};
  return make_tensor_ptr(std::move(sizes), std::move(data), {0}, {1}, type, dynamism);
}

template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes,
                                 std::initializer_list<T> list,
                                 std::vector<executorch::aten::DimOrderType> dim_order = {},
                                 std::vector<executorch::aten::StridesType> strides = {},
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), std::vector<T>(list), std::move(dim_order),
                         std::move(strides), type, dynamism);
}

template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::initializer_list<T> list,
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::vector<T>(list), type, dynamism);
}

// A 0-dim tensor holding `value`.
template <typename T>
inline TensorPtr make_tensor_ptr(T value) {
  return make_tensor_ptr(std::vector<executorch::aten::SizesType>{}, std::vector<T>{value});
}

// A tensor owning `data`, raw bytes of `type` elements.
inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
    std::vector<executorch::aten::DimOrderType> dim_order,
    std::vector<executorch::aten::StridesType> strides,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  (void)dynamism;
  return internal::make_owned(std::move(sizes), data.data(), data.size(), std::move(dim_order),
                              std::move(strides), type);
}

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), std::move(data), {}, {}, type, dynamism);
}

}  // namespace extension
}  // namespace executorch
