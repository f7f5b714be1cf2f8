// Compatibility layer (extension/compat): dim order helpers (dim order: the
// dimensions from outermost to innermost in memory).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {

namespace internal {
// True when dim_order[0..dims) is a permutation of 0..dims-1.
template <typename DimOrderType>
bool valid_dim_order(const DimOrderType* dim_order, size_t dims) {
  if (dims > kTensorDimensionLimit) return false;
  uint32_t seen = 0;
  for (size_t i = 0; i < dims; ++i) {
    const auto d = static_cast<size_t>(dim_order[i]);
    if (d >= dims || (seen >> d) & 1u) return false;
    seen |= 1u << d;
  }
  return true;
}
}  // namespace internal

// 0, 1, ..., dims-1.
template <typename DimOrderType>
inline bool is_contiguous_dim_order(const DimOrderType* dim_order, const size_t dims) {
  for (size_t i = 0; i < dims; ++i) {
    if (dim_order[i] != static_cast<DimOrderType>(i)) return false;
  }
  return true;
}

// 0, 2, 3, 1 (4-D) or 0, 2, 3, 4, 1 (5-D): channels innermost.
template <typename DimOrderType>
bool is_channels_last_dim_order(const DimOrderType* dim_order, const size_t dims) {
  if (dims != 4 && dims != 5) return false;
  if (dim_order[0] != 0 || dim_order[dims - 1] != 1) return false;
  for (size_t d = 1; d + 1 < dims; ++d) {
    if (dim_order[d] != static_cast<DimOrderType>(d + 1)) return false;
  }
  return true;
}

// The strides of a dense tensor with these sizes and dim order (a size-0
// dimension keeps the stride of the one inside it). No checks.
template <typename SizesType, typename DimOrderType, typename StridesType>
inline void dim_order_to_stride_nocheck(const SizesType* sizes, const DimOrderType* dim_order,
                                        const size_t dims, StridesType* strides) {
  if (dims == 0) return;
  strides[dim_order[dims - 1]] = 1;
  for (size_t i = dims - 1; i-- > 0;) {
    const auto inner = dim_order[i + 1];
    strides[dim_order[i]] = sizes[inner] == 0
                                ? strides[inner]
                                : strides[inner] * static_cast<StridesType>(sizes[inner]);
  }
}

// The same; InvalidArgument when dim_order is not a permutation of 0..dims-1.
template <typename SizesType, typename DimOrderType, typename StridesType>
ET_NODISCARD inline Error dim_order_to_stride(const SizesType* sizes, const DimOrderType* dim_order,
                                              const size_t dims, StridesType* strides) {
  if (dims == 0) return Error::Ok;
  ET_CHECK_OR_RETURN_ERROR(internal::valid_dim_order(dim_order, dims), InvalidArgument,
                           "Invalid dim order: values must be a permutation of [0, %zu)", dims);
  dim_order_to_stride_nocheck(sizes, dim_order, dims, strides);
  return Error::Ok;
}

// The dim order of a tensor with these strides: dimensions by decreasing
// stride (equal strides keep their order). MemoryAllocationFailed for a null
// output, NotSupported above 16 dimensions.
template <typename DimOrderType, typename StridesType>
ET_NODISCARD inline Error stride_to_dim_order(const StridesType* strides, const size_t dims,
                                              DimOrderType* dim_order) {
  ET_CHECK_OR_RETURN_ERROR(dim_order != nullptr, MemoryAllocationFailed,
                           "Need memory to get dim_order.");
  ET_CHECK_OR_RETURN_ERROR(dims <= kTensorDimensionLimit, NotSupported,
                           "dims %zu exceeds maximum allowed %zu", dims, kTensorDimensionLimit);
  for (size_t i = 0; i < dims; ++i) {
    // Insertion: after every dimension whose stride is at least this one's.
    size_t at = i;
    while (at > 0 && strides[dim_order[at - 1]] < strides[i]) {
      dim_order[at] = dim_order[at - 1];
      --at;
    }
    dim_order[at] = static_cast<DimOrderType>(i);
  }
  return Error::Ok;
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::dim_order_to_stride;
using ::executorch::runtime::dim_order_to_stride_nocheck;
using ::executorch::runtime::is_channels_last_dim_order;
using ::executorch::runtime::is_contiguous_dim_order;
using ::executorch::runtime::stride_to_dim_order;
}  // namespace executor
}  // namespace torch
