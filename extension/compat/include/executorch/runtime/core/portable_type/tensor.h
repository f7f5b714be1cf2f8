// Compatibility layer (extension/compat): the official portable Tensor, a
// non-owning view of a tensor (here an etr::Tensor, which plays the role of
// the official TensorImpl). Like the official one it owns nothing: the
// TensorPtr or EValue it came from must outlive it.
#pragma once

#include <executorch/runtime/core/portable_type/tensor_impl.h>

#include <cstddef>
#include <cstdint>

namespace etr {
class Value;
}  // namespace etr

namespace executorch {
namespace runtime {
namespace etensor {

using TensorShapeDynamism = ::executorch::runtime::TensorShapeDynamism;

class Tensor {
 public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int32_t;

  Tensor() = default;
  // Views any etr tensor: a TensorImpl, a TensorPtr's, a Method's.
  explicit Tensor(::etr::Tensor* impl) : impl_(impl) {}
  // Internal (extension/compat): `source` is the etr::Value that owns `impl`.
  Tensor(::etr::Tensor* impl, const ::etr::Value* source) : impl_(impl), source_(source) {}

  // The etr tensor behind this view (a TensorImpl when one was given).
  ::etr::Tensor* unsafeGetTensorImpl() const { return impl_; }

  ScalarType scalar_type() const { return impl_->scalar_type(); }
  ScalarType dtype() const { return impl_->scalar_type(); }
  ptrdiff_t dim() const { return static_cast<ptrdiff_t>(impl_->dim()); }
  ptrdiff_t numel() const { return static_cast<ptrdiff_t>(impl_->numel()); }
  size_t nbytes() const { return impl_->nbytes(); }
  ptrdiff_t element_size() const { return static_cast<ptrdiff_t>(impl_->element_size()); }
  ptrdiff_t size(ptrdiff_t d) const { return static_cast<ptrdiff_t>(impl_->size(d)); }
  ArrayRef<SizesType> sizes() const { return impl_->sizes(); }
  ArrayRef<DimOrderType> dim_order() const { return impl_->dim_order(); }
  // etr keeps 64-bit strides; they are narrowed into this view on each call
  // (aborting on one above INT32_MAX), so the array lives as long as this
  // Tensor object and follows a resize of the tensor at the next call.
  ArrayRef<StridesType> strides() const {
    const auto wide = impl_->strides();
    for (size_t i = 0; i < wide.size(); ++i) {
      ET_CHECK_MSG(wide[i] >= 0 && wide[i] <= INT32_MAX, "stride %zu (%lld) does not fit int32", i,
                   static_cast<long long>(wide[i]));
      strides32_[i] = static_cast<StridesType>(wide[i]);
    }
    return {strides32_, wide.size()};
  }
  TensorShapeDynamism shape_dynamism() const {
    return static_cast<TensorShapeDynamism>(impl_->shape_dynamism());
  }
  // etr runs tensors on the CPU; a TensorPtr made for another device records
  // it here (the data pointer is the caller's).
  Device device() const { return device_; }
  DeviceType device_type() const { return device_.type(); }
  DeviceIndex device_index() const { return device_.index(); }

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

  // DEPRECATED in the official API: points the tensor at `ptr` (not owned,
  // the old data is not freed), which must hold nbytes() bytes.
  ET_DEPRECATED void set_data(void* ptr) const { impl_->set_data(ptr, impl_->nbytes()); }

  // Internal (extension/compat).
  const ::etr::Value* etr_source() const { return source_; }
  void set_device(Device device) { device_ = device; }

 private:
  ::etr::Tensor* impl_ = nullptr;
  const ::etr::Value* source_ = nullptr;
  Device device_{DeviceType::CPU, 0};
  mutable StridesType strides32_[::etr::kTensorMaxDim] = {};
};

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch
