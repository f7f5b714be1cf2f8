// Compatibility layer (extension/compat): the official portable Tensor, a
// non-owning view of a tensor (here an etr::Tensor, which plays the role of
// the official TensorImpl). Like the official one it owns nothing: the
// TensorPtr or EValue it came from must outlive it.
#pragma once

#include <executorch/runtime/core/tensor_shape_dynamism.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etr {
class Value;
}  // namespace etr

namespace executorch {
namespace runtime {
namespace etensor {

// Same enumerators and values as the official ScalarType (Byte = 0 ...
// Float = 6 ... Bool = 11 ... UInt64 = 29); there is no Undefined.
using ScalarType = ::etr::ScalarType;
using TensorImpl = ::etr::Tensor;

using TensorShapeDynamism = ::executorch::runtime::TensorShapeDynamism;

template <typename T>
using ArrayRef = ::etr::Span<const T>;

class Tensor {
 public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int64_t;  // etr keeps 64-bit strides (official: int32_t)

  Tensor() = default;
  explicit Tensor(TensorImpl* impl) : impl_(impl) {}
  // Internal (extension/compat): `source` is the etr::Value that owns `impl`.
  Tensor(TensorImpl* impl, const ::etr::Value* source) : impl_(impl), source_(source) {}

  TensorImpl* unsafeGetTensorImpl() const { return impl_; }

  ScalarType scalar_type() const { return impl_->scalar_type(); }
  ScalarType dtype() const { return impl_->scalar_type(); }
  ptrdiff_t dim() const { return static_cast<ptrdiff_t>(impl_->dim()); }
  ptrdiff_t numel() const { return static_cast<ptrdiff_t>(impl_->numel()); }
  size_t nbytes() const { return impl_->nbytes(); }
  ptrdiff_t element_size() const { return static_cast<ptrdiff_t>(impl_->element_size()); }
  ptrdiff_t size(ptrdiff_t d) const { return static_cast<ptrdiff_t>(impl_->size(d)); }
  ArrayRef<SizesType> sizes() const { return impl_->sizes(); }
  ArrayRef<DimOrderType> dim_order() const { return impl_->dim_order(); }
  ArrayRef<StridesType> strides() const { return impl_->strides(); }
  TensorShapeDynamism shape_dynamism() const {
    return static_cast<TensorShapeDynamism>(impl_->shape_dynamism());
  }

  const void* const_data_ptr() const { return impl_->const_data(); }
  template <typename T>
  const T* const_data_ptr() const {
    return impl_->const_data_ptr<T>();
  }
  void* mutable_data_ptr() const { return impl_->mutable_data(); }
  template <typename T>
  T* mutable_data_ptr() const {
    return impl_->data_ptr<T>();
  }
  template <typename T>
  T* data_ptr() const {
    return impl_->data_ptr<T>();
  }

  // Internal (extension/compat).
  const ::etr::Value* etr_source() const { return source_; }

 private:
  TensorImpl* impl_ = nullptr;
  const ::etr::Value* source_ = nullptr;
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
