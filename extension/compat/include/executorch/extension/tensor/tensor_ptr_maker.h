// Compatibility layer (extension/compat): from_blob and the allocating makers
// (empty, zeros, ones) under their official names. See tensor_ptr.h for
// what replaces the official aborts.
#pragma once

#include <executorch/extension/tensor/tensor_ptr.h>

#include <functional>
#include <utility>
#include <vector>

namespace executorch {
namespace extension {

// A tensor over `data` (not copied: it must outlive the tensor).
inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, dynamism);
}

inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           std::vector<executorch::aten::StridesType> strides,
                           executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), data, {}, std::move(strides), type, dynamism);
}

// `deleter(data)` runs when the last TensorPtr goes away.
inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           executorch::aten::ScalarType type, std::function<void(void*)>&& deleter,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, dynamism, std::move(deleter));
}

inline TensorPtr from_blob(void* data, std::vector<executorch::aten::SizesType> sizes,
                           std::vector<executorch::aten::StridesType> strides,
                           executorch::aten::ScalarType type, std::function<void(void*)>&& deleter,
                           executorch::aten::TensorShapeDynamism dynamism =
                               executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), data, {}, std::move(strides), type, dynamism,
                         std::move(deleter));
}

// Zero-filled (empty() too: etr never hands out uninitialized memory).
TensorPtr zeros(std::vector<executorch::aten::SizesType> sizes,
                executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                executorch::aten::TensorShapeDynamism dynamism =
                    executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);
inline TensorPtr empty(std::vector<executorch::aten::SizesType> sizes,
                       executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                       executorch::aten::TensorShapeDynamism dynamism =
                           executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return zeros(std::move(sizes), type, dynamism);
}
TensorPtr ones(std::vector<executorch::aten::SizesType> sizes,
               executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
               executorch::aten::TensorShapeDynamism dynamism =
                   executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

}  // namespace extension
}  // namespace executorch
