// Compatibility layer (extension/compat): the official TensorImpl, an
// etr::Tensor (runtime/core/tensor.h: the object that holds a tensor's dtype,
// sizes, dim order, strides and data pointer) with the official constructor.
// Every official Tensor (a TensorPtr's, an EValue's, a Method's input or
// output) views an etr::Tensor, so nothing is copied between the two faces;
// its members keep etr's names (scalar_type(), sizes(), mutable_data(), ...).
//
// The official constructor takes 32-bit strides (StridesType); etr keeps
// 64-bit strides, so a TensorImpl holds its own 64-bit copy of them (the
// sizes and dim order stay the caller's, as upstream). Strides that are not
// the dense strides of the sizes in the dim order are refused (logged; the
// tensor is left empty), since etr tensors are dense.
//
// compute_numel() and safe_numel() count the elements of a shape; the first
// aborts on a negative size or an overflow, the second returns an error.
#pragma once

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/tensor_shape_dynamism.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/checked_math.h"
#include "runtime/core/tensor.h"

namespace executorch {
namespace runtime {
namespace etensor {

class TensorImpl : public ::etr::Tensor {
 public:
  using SizesType = int32_t;
  using DimOrderType = uint8_t;
  using StridesType = int32_t;

  TensorImpl() = delete;
  TensorImpl(ScalarType type, ssize_t dim, SizesType* sizes, void* data = nullptr,
             DimOrderType* dim_order = nullptr, StridesType* strides = nullptr,
             TensorShapeDynamism dynamism = TensorShapeDynamism::STATIC) {
    // etr::Tensor's constructor checks everything (a rank beyond the limit
    // included: the strides are then not copied) and logs what it refuses.
    const bool fits = dim >= 0 && static_cast<size_t>(dim) <= ::etr::kTensorMaxDim;
    for (ssize_t i = 0; fits && strides != nullptr && i < dim; ++i) strides64_[i] = strides[i];
    static_cast<::etr::Tensor&>(*this) = ::etr::Tensor(
        type, dim, sizes, data, dim_order, strides == nullptr ? nullptr : strides64_, dynamism);
  }
  // Points the tensor at `ptr` (not owned), which must hold nbytes() bytes.
  void set_data(void* ptr) { ::etr::Tensor::set_data(ptr, nbytes()); }
  using ::etr::Tensor::set_data;

  // The base points into this object's strides, so it may not be copied.
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

 private:
  int64_t strides64_[::etr::kTensorMaxDim] = {};
};

// The element count of `sizes[0..dim)`, or Error::InvalidArgument for a
// negative size or a count that overflows.
inline Result<ssize_t> safe_numel(const int32_t* sizes, ssize_t dim) {
  int64_t count = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    ET_CHECK_OR_RETURN_ERROR(sizes[i] >= 0, InvalidArgument, "size %zd is negative: %d",
                             static_cast<ssize_t>(i), sizes[i]);
    ET_CHECK_OR_RETURN_ERROR(::etr::checked_mul_i64(count, sizes[i], &count), InvalidArgument,
                             "element count overflows at dim %zd", static_cast<ssize_t>(i));
  }
  return static_cast<ssize_t>(count);
}

// The element count of `sizes[0..dim)`; aborts on a negative size or overflow.
inline ssize_t compute_numel(const int32_t* sizes, ssize_t dim) {
  Result<ssize_t> n = safe_numel(sizes, dim);
  ET_CHECK_MSG(n.ok(), "compute_numel: invalid sizes (error 0x%x)",
               static_cast<unsigned>(n.error()));
  return n.get();
}

}  // namespace etensor
}  // namespace runtime
}  // namespace executorch

// printf formats for tensor sizes, dims, element counts and strides.
#define ET_PRI_TENSOR_SIZE "zd"
#define ET_PRI_TENSOR_DIM "zd"
#define ET_PRI_TENSOR_NUMEL "zd"
#define ET_PRI_SIZES_AND_STRIDES "d"

namespace torch {
namespace executor {
using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::safe_numel;
using ::executorch::runtime::etensor::TensorImpl;
}  // namespace executor
}  // namespace torch
