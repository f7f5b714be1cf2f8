// Compatibility layer (extension/compat): the official TensorPtr
// (std::shared_ptr<executorch::aten::Tensor>) and make_tensor_ptr.
//
// A TensorPtr owns one etr::Tensor (the official TensorImpl) with its own
// sizes, dim order and strides, over data that is either the caller's (with
// an optional deleter run when the last TensorPtr goes) or a buffer the
// TensorPtr owns. Copies of a TensorPtr share that tensor, so resizing one
// resizes all; make_tensor_ptr(tensor_ptr, ...) makes a view with its own
// shape over the same data that keeps the source alive.
//
// As in the official API, a contract violation aborts with a message naming
// it (ET_CHECK): a data size that does not match the shape, a dim order that
// is not a permutation, strides that disagree with the dim order (a size-1
// dimension may carry any stride; the stored one is recomputed), a cast
// ATen forbids (floating -> integral, complex -> real, anything -> Bool).
// Fallible operations on a valid TensorPtr (resize_tensor_ptr) return an
// Error instead.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/assert.h>

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
// Converts `count` elements of dtype `from` at `src` to dtype `to` at `dst`
// (Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16,
// UInt16, UInt32, UInt64); false for another dtype.
bool cast_elements(const void* src, size_t count, executorch::aten::ScalarType from,
                   executorch::aten::ScalarType to, void* dst);
// The element count of `sizes`; aborts on a negative size or an overflow.
size_t checked_numel(const std::vector<executorch::aten::SizesType>& sizes);
}  // namespace internal

// A tensor over `data` (not copied: it must outlive the tensor unless
// `deleter` owns it). `deleter(data)`, when given, runs when the last
// TensorPtr goes away. Empty `dim_order` is inferred from `strides` (or is
// the contiguous order); empty `strides` are computed from the dim order.
TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, void* data,
                          std::vector<executorch::aten::DimOrderType> dim_order,
                          std::vector<executorch::aten::StridesType> strides,
                          executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                          executorch::aten::TensorShapeDynamism dynamism =
                              executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
                          std::function<void(void*)> deleter = nullptr);

// The same, recording the device `data` lives on (etr runs on the CPU; the
// device is metadata for the caller).
TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, void* data,
                          std::vector<executorch::aten::DimOrderType> dim_order,
                          std::vector<executorch::aten::StridesType> strides,
                          executorch::aten::ScalarType type, executorch::aten::Device device,
                          executorch::aten::TensorShapeDynamism dynamism =
                              executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
                          std::function<void(void*)> deleter = nullptr);

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, void* data,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type);
}

inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, void* data,
                                 executorch::aten::ScalarType type, executorch::aten::Device device,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND,
                                 std::function<void(void*)> deleter = nullptr) {
  return make_tensor_ptr(std::move(sizes), data, {}, {}, type, device, dynamism,
                         std::move(deleter));
}

// A tensor owning `data` (moved in), of the dtype of T, or converted to
// `type` when that differs. data.size() must be the element count.
template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes,
                                 std::vector<T> data,
                                 std::vector<executorch::aten::DimOrderType> dim_order = {},
                                 std::vector<executorch::aten::StridesType> strides = {},
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  const size_t numel = internal::checked_numel(sizes);
  ET_CHECK_MSG(data.size() == numel,
               "make_tensor_ptr: %zu values given for a shape of %zu elements", data.size(), numel);
  if constexpr (std::is_same<T, bool>::value) {
    // std::vector<bool> is bit-packed: one byte per element instead.
    std::vector<uint8_t> bytes(data.begin(), data.end());
    return make_tensor_ptr<uint8_t, deduced_type>(std::move(sizes), std::move(bytes),
                                                  std::move(dim_order), std::move(strides), type,
                                                  dynamism);
  } else {
    if (type != deduced_type) {
      ET_CHECK_MSG(runtime::canCast(deduced_type, type),
                   "make_tensor_ptr: cannot cast %s values to %s", runtime::toString(deduced_type),
                   runtime::toString(type));
      auto cast = std::make_shared<std::vector<uint8_t>>(numel * runtime::elementSize(type));
      ET_CHECK_MSG(internal::cast_elements(data.data(), numel, deduced_type, type, cast->data()),
                   "make_tensor_ptr: unsupported cast from %s to %s",
                   runtime::toString(deduced_type), runtime::toString(type));
      void* raw = cast->empty() ? nullptr : cast->data();
      return make_tensor_ptr(std::move(sizes), raw, std::move(dim_order), std::move(strides), type,
                             dynamism, [cast](void*) {});
    }
    auto owned = std::make_shared<std::vector<T>>(std::move(data));
    return make_tensor_ptr(std::move(sizes), owned->data(), std::move(dim_order),
                           std::move(strides), type, dynamism, [owned](void*) {});
  }
}

// A 1-D tensor owning `data`.
template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::vector<T> data,
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  std::vector<executorch::aten::SizesType> sizes{executorch::aten::SizesType(data.size())};
  return make_tensor_ptr<T, deduced_type>(std::move(sizes), std::move(data), {0}, {1}, type,
                                          dynamism);
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
  return make_tensor_ptr<T, deduced_type>(std::move(sizes), std::vector<T>(list),
                                          std::move(dim_order), std::move(strides), type, dynamism);
}

template <typename T = float,
          executorch::aten::ScalarType deduced_type = runtime::CppTypeToScalarType<T>::value>
inline TensorPtr make_tensor_ptr(std::initializer_list<T> list,
                                 executorch::aten::ScalarType type = deduced_type,
                                 executorch::aten::TensorShapeDynamism dynamism =
                                     executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr<T, deduced_type>(std::vector<T>(list), type, dynamism);
}

// A 0-dim tensor holding `value`.
template <typename T>
inline TensorPtr make_tensor_ptr(T value) {
  return make_tensor_ptr(std::vector<executorch::aten::SizesType>{}, std::vector<T>{value});
}

// A tensor owning `data`: raw bytes of `type` elements (their count must be
// the shape's element count times the element size).
TensorPtr make_tensor_ptr(std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
                          std::vector<executorch::aten::DimOrderType> dim_order,
                          std::vector<executorch::aten::StridesType> strides,
                          executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
                          executorch::aten::TensorShapeDynamism dynamism =
                              executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND);

inline TensorPtr make_tensor_ptr(
    std::vector<executorch::aten::SizesType> sizes, std::vector<uint8_t> data,
    executorch::aten::ScalarType type = executorch::aten::ScalarType::Float,
    executorch::aten::TensorShapeDynamism dynamism =
        executorch::aten::TensorShapeDynamism::DYNAMIC_BOUND) {
  return make_tensor_ptr(std::move(sizes), std::move(data), {}, {}, type, dynamism);
}

// A view of `tensor`'s data with its own shape: empty `sizes` keep the
// tensor's; a view of the same rank keeps its dim order unless `dim_order`
// or `strides` is given. The view may not have more elements than the
// tensor. It does not keep the data alive unless `deleter` does (e.g. by
// capturing the TensorPtr the tensor came from).
TensorPtr make_tensor_ptr(const executorch::aten::Tensor& tensor,
                          std::vector<executorch::aten::SizesType> sizes = {},
                          std::vector<executorch::aten::DimOrderType> dim_order = {},
                          std::vector<executorch::aten::StridesType> strides = {},
                          std::function<void(void*)> deleter = nullptr);

// The same over a TensorPtr, keeping it alive as long as the view.
inline TensorPtr make_tensor_ptr(const TensorPtr& tensor_ptr,
                                 std::vector<executorch::aten::SizesType> sizes = {},
                                 std::vector<executorch::aten::DimOrderType> dim_order = {},
                                 std::vector<executorch::aten::StridesType> strides = {}) {
  ET_CHECK_MSG(tensor_ptr != nullptr, "make_tensor_ptr: the source TensorPtr is null");
  return make_tensor_ptr(*tensor_ptr, std::move(sizes), std::move(dim_order), std::move(strides),
                         [tensor_ptr](void*) {});
}

// A tensor owning a copy of `tensor`'s data (same shape, dim order and
// dynamism), converted to `type`. A tensor without data clones to one
// without data.
TensorPtr clone_tensor_ptr(const executorch::aten::Tensor& tensor,
                           executorch::aten::ScalarType type);

inline TensorPtr clone_tensor_ptr(const executorch::aten::Tensor& tensor) {
  return clone_tensor_ptr(tensor, tensor.scalar_type());
}

inline TensorPtr clone_tensor_ptr(const TensorPtr& tensor, executorch::aten::ScalarType type) {
  ET_CHECK_MSG(tensor != nullptr, "clone_tensor_ptr: the TensorPtr is null");
  return clone_tensor_ptr(*tensor, type);
}

inline TensorPtr clone_tensor_ptr(const TensorPtr& tensor) {
  ET_CHECK_MSG(tensor != nullptr, "clone_tensor_ptr: the TensorPtr is null");
  return clone_tensor_ptr(*tensor, tensor->scalar_type());
}

// Changes the sizes of `tensor` (and of every copy of it). NotSupported for
// a rank change, a static tensor given other sizes, or more elements than
// the tensor had when made (its capacity); the reason is logged.
ET_NODISCARD runtime::Error resize_tensor_ptr(
    TensorPtr& tensor, const std::vector<executorch::aten::SizesType>& sizes);

}  // namespace extension
}  // namespace executorch
