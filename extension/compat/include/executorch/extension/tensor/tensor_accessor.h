// Compatibility layer (extension/compat): TensorAccessor<T, N>, indexed
// access to the elements of a contiguous tensor: acc[i][j][k] follows the
// strides. Made by make_tensor_accessor<T, N>(tensor), which checks the rank,
// the element size and the dim order. Indices are not checked (size() and
// stride() are, with ET_CHECK).
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/assert.h>
#include <sys/types.h>

#include <cstddef>
#include <type_traits>

namespace executorch {
namespace extension {

template <typename T, ssize_t N>
class TensorAccessor;

namespace internal {

template <typename T, ssize_t N>
class TensorAccessorBase {
 public:
  executorch::aten::SizesType size(ssize_t i) const {
    ET_CHECK_MSG(i < dim_ && i >= 0, "Dimension outside of [0, %zd], got %zd", dim_ - 1, i);
    return sizes_[i];
  }
  executorch::aten::StridesType stride(ssize_t i) const {
    ET_CHECK_MSG(i < dim_ && i >= 0, "Dimension outside of [0, %zd], got %zd", dim_ - 1, i);
    return strides_[i];
  }

 protected:
  TensorAccessorBase(T* data, const executorch::aten::SizesType* sizes,
                     const executorch::aten::StridesType* strides, ssize_t dim)
      : data_(data), sizes_(sizes), strides_(strides), dim_(dim) {}

  T* data_;
  const executorch::aten::SizesType* sizes_;
  const executorch::aten::StridesType* strides_;
  ssize_t dim_;
};

}  // namespace internal

template <typename T, ssize_t N>
executorch::runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(
    const executorch::aten::Tensor& tensor);

template <typename T, ssize_t N>
class TensorAccessor : public internal::TensorAccessorBase<T, N> {
 public:
  // The sub-tensor at index i of the outermost dimension.
  TensorAccessor<T, N - 1> operator[](ssize_t i) {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1,
                                    this->strides_ + 1, N - 1);
  }
  const TensorAccessor<T, N - 1> operator[](ssize_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1,
                                    this->strides_ + 1, N - 1);
  }

 private:
  TensorAccessor(T* data, const executorch::aten::SizesType* sizes,
                 const executorch::aten::StridesType* strides, ssize_t dim)
      : internal::TensorAccessorBase<T, N>(data, sizes, strides, dim) {}

  template <typename T2, ssize_t N2>
  friend class TensorAccessor;
  template <typename T2, ssize_t N2>
  friend executorch::runtime::Result<TensorAccessor<T2, N2>> make_tensor_accessor(
      const executorch::aten::Tensor& t);
};

template <typename T>
class TensorAccessor<T, 1> : public internal::TensorAccessorBase<T, 1> {
 public:
  T& operator[](ssize_t i) { return this->data_[this->strides_[0] * i]; }
  const T& operator[](ssize_t i) const { return this->data_[this->strides_[0] * i]; }

 private:
  TensorAccessor(T* data, const executorch::aten::SizesType* sizes,
                 const executorch::aten::StridesType* strides, ssize_t dim)
      : internal::TensorAccessorBase<T, 1>(data, sizes, strides, dim) {}

  template <typename T2, ssize_t N2>
  friend class TensorAccessor;
  template <typename T2, ssize_t N2>
  friend executorch::runtime::Result<TensorAccessor<T2, N2>> make_tensor_accessor(
      const executorch::aten::Tensor& t);
};

// An accessor over `tensor` (which must outlive it): InvalidArgument when
// its rank is not N or its element size is not sizeof(T), NotSupported for a
// dim order other than 0, 1, ..., N-1.
template <typename T, ssize_t N>
executorch::runtime::Result<TensorAccessor<T, N>> make_tensor_accessor(
    const executorch::aten::Tensor& tensor) {
  static_assert(N > 0,
                "TensorAccessor is used for indexing tensors, for scalar use *_data_ptr<T>()");
  if (N != tensor.dim()) {
    ET_LOG(Error, "Expecting %zd dimensions but tensor has %zd.", static_cast<ssize_t>(N),
           static_cast<ssize_t>(tensor.dim()));
    return executorch::runtime::Error::InvalidArgument;
  }
  if (static_cast<ssize_t>(sizeof(T)) != tensor.element_size()) {
    ET_LOG(Error,
           "Size of data type template argument (%zd) not equal to tensor element size (%zd)",
           static_cast<ssize_t>(sizeof(T)), static_cast<ssize_t>(tensor.element_size()));
    return executorch::runtime::Error::InvalidArgument;
  }
  const auto dim_order = tensor.dim_order();
  for (size_t i = 0; i < dim_order.size(); ++i) {
    if (dim_order[i] != i) {
      ET_LOG(Error, "Non-trival dim_order not supported.");
      return executorch::runtime::Error::NotSupported;
    }
  }
  T* data = nullptr;
  if constexpr (std::is_const_v<T>) {
    data = tensor.template const_data_ptr<std::remove_const_t<T>>();
  } else {
    data = tensor.template mutable_data_ptr<T>();
  }
  return TensorAccessor<T, N>(data, tensor.sizes().data(), tensor.strides().data(), N);
}

}  // namespace extension
}  // namespace executorch
