// Compatibility layer (extension/compat): the official tensor utilities
// (first part: resizing, shape comparisons, leading/trailing dims,
// contiguity). Each works on the etr tensor behind the official Tensor.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <sys/types.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace executorch {
namespace runtime {

namespace internal {
// Error::Ok .. DelegateInvalidHandle share their values with etr::Error.
Error to_official_error(int etr_error);
}  // namespace internal

// Changes the sizes of `t` (same rank): a static tensor accepts only its
// current sizes, a bounded dynamic one any sizes that fit its capacity.
// NotSupported otherwise (logged), as in the official runtime.
ET_NODISCARD inline Error resize_tensor(
    executorch::aten::Tensor t, executorch::aten::ArrayRef<executorch::aten::SizesType> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(t.unsafeGetTensorImpl() != nullptr, InvalidArgument,
                           "resize_tensor: the tensor is empty");
  const ::etr::Error err = ::etr::resize_tensor(*t.unsafeGetTensorImpl(), new_sizes);
  return err == ::etr::Error::Ok ? Error::Ok : internal::to_official_error(static_cast<int>(err));
}

// The same with sizes of another integer type (e.g. int64_t).
template <typename T, typename std::enable_if<!std::is_same<executorch::aten::SizesType, T>::value,
                                              int>::type = 0>
ET_NODISCARD inline Error resize_tensor(executorch::aten::Tensor t,
                                        executorch::aten::ArrayRef<T> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(t.unsafeGetTensorImpl() != nullptr, InvalidArgument,
                           "resize_tensor: the tensor is empty");
  ET_CHECK_OR_RETURN_ERROR(new_sizes.size() <= ::etr::kTensorMaxDim, InvalidArgument,
                           "resize_tensor: rank %zu is above the limit %zu", new_sizes.size(),
                           ::etr::kTensorMaxDim);
  int64_t sizes[::etr::kTensorMaxDim];
  for (size_t i = 0; i < new_sizes.size(); ++i) sizes[i] = static_cast<int64_t>(new_sizes[i]);
  const ::etr::Error err = ::etr::resize_tensor(
      *t.unsafeGetTensorImpl(), ::etr::Span<const int64_t>(sizes, new_sizes.size()));
  return err == ::etr::Error::Ok ? Error::Ok : internal::to_official_error(static_cast<int>(err));
}

inline bool tensor_has_dim(executorch::aten::Tensor t, int64_t d) {
  if (t.dim() == 0) {
    ET_CHECK_OR_RETURN_FALSE(d == 0 || d == -1,
                             "dim must be 0 or -1 for 0-dim tensor, got %" PRId64, d);
  } else {
    ET_CHECK_OR_RETURN_FALSE(d > 0 ? d < t.dim() : t.dim() + d >= 0,
                             "%zd-dim tensor does not have dim at index %zu",
                             static_cast<ssize_t>(t.dim()), static_cast<size_t>(d));
  }
  return true;
}

inline bool tensors_have_same_shape(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  if (a.numel() == 1 && b.numel() == 1) return true;  // scalars of any rank
  if (a.dim() != b.dim()) {
    ET_LOG(Error, "Tensors do not have same shape: ranks %zd and %zd",
           static_cast<ssize_t>(a.dim()), static_cast<ssize_t>(b.dim()));
    return false;
  }
  for (ptrdiff_t i = 0; i < a.dim(); ++i) {
    if (a.size(i) != b.size(i)) {
      ET_LOG(Error, "Tensors do not have same shape: dim %zd is %zd and %zd",
             static_cast<ssize_t>(i), static_cast<ssize_t>(a.size(i)),
             static_cast<ssize_t>(b.size(i)));
      return false;
    }
  }
  return true;
}

inline bool tensors_have_same_dtype(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  ET_CHECK_OR_RETURN_FALSE(a.scalar_type() == b.scalar_type(),
                           "Tensors do not have same dtype: %d and %d",
                           static_cast<int>(a.scalar_type()), static_cast<int>(b.scalar_type()));
  return true;
}

// True when the tensor's dim order is 0, 1, ..., dim-1.
inline bool tensor_is_default_dim_order(executorch::aten::Tensor t) {
  return t.unsafeGetTensorImpl()->is_contiguous_order();
}

// True when the strides are the contiguous strides of the sizes.
inline bool tensor_is_contiguous(executorch::aten::Tensor t) {
  const auto strides = t.strides();
  const auto sizes = t.sizes();
  if (strides.size() == 0) return true;
  int64_t expected = 1;
  for (size_t i = strides.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

// Product of the sizes before / after dim `dim`.
inline size_t getLeadingDims(const executorch::aten::Tensor& tensor, int64_t dim) {
  ET_CHECK_MSG(dim >= 0 && dim <= tensor.dim(),
               "Ending dimension %" PRId64 " should be in the range [0, tensor.dim() %zd].", dim,
               static_cast<ssize_t>(tensor.dim()));
  size_t dims = 1;
  for (int64_t i = 0; i < dim; ++i) dims *= static_cast<size_t>(tensor.size(i));
  return dims;
}
inline size_t getTrailingDims(const executorch::aten::Tensor& tensor, int64_t dim) {
  ET_CHECK_MSG(dim >= -1 && dim < tensor.dim(),
               "Starting dimension %" PRId64 " should be in the range [-1, tensor.dim() -1 %zd).",
               dim, static_cast<ssize_t>(tensor.dim()));
  size_t dims = 1;
  for (int64_t i = dim + 1; i < tensor.dim(); ++i) dims *= static_cast<size_t>(tensor.size(i));
  return dims;
}

inline ssize_t nonzero_dim(const executorch::aten::Tensor& tensor) {
  return tensor.dim() == 0 ? 1 : tensor.dim();
}
inline ssize_t nonempty_size(const executorch::aten::Tensor& tensor, ssize_t dim) {
  return tensor.dim() == 0 ? 1 : tensor.size(dim);
}

inline bool tensor_is_rank(executorch::aten::Tensor t, size_t rank) {
  ET_CHECK_OR_RETURN_FALSE(static_cast<size_t>(t.dim()) == rank,
                           "Expected tensor.dim() to be %zu, but got %zu", rank,
                           static_cast<size_t>(t.dim()));
  return true;
}

inline bool tensors_have_same_size_at_dims(executorch::aten::Tensor a, size_t dim_a,
                                           executorch::aten::Tensor b, size_t dim_b) {
  ET_CHECK_OR_RETURN_FALSE(dim_a < static_cast<size_t>(a.dim()),
                           "dim_a %zu is out of range for a %zd-dim tensor", dim_a,
                           static_cast<ssize_t>(a.dim()));
  ET_CHECK_OR_RETURN_FALSE(dim_b < static_cast<size_t>(b.dim()),
                           "dim_b %zu is out of range for a %zd-dim tensor", dim_b,
                           static_cast<ssize_t>(b.dim()));
  ET_CHECK_OR_RETURN_FALSE(
      a.size(dim_a) == b.size(dim_b), "a.size(%zu) = %zd does not match b.size(%zu) = %zd", dim_a,
      static_cast<ssize_t>(a.size(dim_a)), dim_b, static_cast<ssize_t>(b.size(dim_b)));
  return true;
}

inline bool tensors_have_same_shape(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                    executorch::aten::Tensor c) {
  return tensors_have_same_shape(a, b) && tensors_have_same_shape(b, c);
}

inline bool tensors_have_same_dtype(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                    executorch::aten::Tensor c) {
  return tensors_have_same_dtype(a, b) && tensors_have_same_dtype(b, c);
}

inline bool tensors_have_same_shape_and_dtype(executorch::aten::Tensor a,
                                              executorch::aten::Tensor b) {
  return tensors_have_same_shape(a, b) && tensors_have_same_dtype(a, b);
}

inline bool tensors_have_same_shape_and_dtype(executorch::aten::Tensor a,
                                              executorch::aten::Tensor b,
                                              executorch::aten::Tensor c) {
  return tensors_have_same_shape(a, b, c) && tensors_have_same_dtype(a, b, c);
}

// True when both tensors have the same rank and the same stride in every dim.
inline bool tensors_have_same_strides(executorch::aten::Tensor a, executorch::aten::Tensor b) {
  ET_CHECK_OR_RETURN_FALSE(a.dim() == b.dim(), "Tensors have different ranks: %zd and %zd",
                           static_cast<ssize_t>(a.dim()), static_cast<ssize_t>(b.dim()));
  for (ptrdiff_t i = 0; i < a.dim(); ++i) {
    ET_CHECK_OR_RETURN_FALSE(a.strides()[i] == b.strides()[i],
                             "Tensors have different strides at dim %zd: %lld and %lld",
                             static_cast<ssize_t>(i), static_cast<long long>(a.strides()[i]),
                             static_cast<long long>(b.strides()[i]));
  }
  return true;
}

inline bool tensors_have_same_strides(executorch::aten::Tensor a, executorch::aten::Tensor b,
                                      executorch::aten::Tensor c) {
  return tensors_have_same_strides(a, b) && tensors_have_same_strides(b, c);
}

// extract_scalar_tensor: reads the one element of a one-element tensor into
// *out. False (nothing written) when the tensor holds more or fewer than one
// element, when its dtype is of another kind than the out type (integral
// into an integer, integral or floating into a floating type, Bool into
// bool), or when a finite value does not fit the out type.
namespace internal {
template <typename From, typename To>
bool scalar_fits(From v) {
  if (std::is_integral<To>::value) {
    if (std::is_signed<From>::value && !std::is_signed<To>::value && v < 0) return false;
    const long double x = static_cast<long double>(v);
    return x >= static_cast<long double>(std::numeric_limits<To>::lowest()) &&
           x <= static_cast<long double>(std::numeric_limits<To>::max());
  }
  const long double x = static_cast<long double>(v);
  if (!std::isfinite(x)) return true;  // inf and nan convert to any floating type
  return x >= static_cast<long double>(std::numeric_limits<To>::lowest()) &&
         x <= static_cast<long double>(std::numeric_limits<To>::max());
}
}  // namespace internal

template <typename INT_T, typename std::enable_if<std::is_integral<INT_T>::value &&
                                                      !std::is_same<INT_T, bool>::value,
                                                  bool>::type = true>
bool extract_scalar_tensor(executorch::aten::Tensor tensor, INT_T* out) {
  if (tensor.numel() != 1) return false;
  using executorch::aten::ScalarType;
#define ETR_COMPAT_EXTRACT_INT(ctype, dtype)                   \
  case ScalarType::dtype: {                                    \
    const ctype v = tensor.const_data_ptr<ctype>()[0];         \
    if (!internal::scalar_fits<ctype, INT_T>(v)) return false; \
    *out = static_cast<INT_T>(v);                              \
    return true;                                               \
  }
  switch (tensor.scalar_type()) {
    ET_FORALL_INT_TYPES(ETR_COMPAT_EXTRACT_INT)
    default: return false;
  }
#undef ETR_COMPAT_EXTRACT_INT
}

template <typename FLOAT_T,
          typename std::enable_if<std::is_floating_point<FLOAT_T>::value, bool>::type = true>
bool extract_scalar_tensor(executorch::aten::Tensor tensor, FLOAT_T* out) {
  if (tensor.numel() != 1) return false;
  using executorch::aten::ScalarType;
#define ETR_COMPAT_EXTRACT_REAL(ctype, dtype)                    \
  case ScalarType::dtype: {                                      \
    const ctype v = tensor.const_data_ptr<ctype>()[0];           \
    if (!internal::scalar_fits<ctype, FLOAT_T>(v)) return false; \
    *out = static_cast<FLOAT_T>(v);                              \
    return true;                                                 \
  }
  switch (tensor.scalar_type()) {
    ET_FORALL_REAL_TYPES(ETR_COMPAT_EXTRACT_REAL)
    default: return false;
  }
#undef ETR_COMPAT_EXTRACT_REAL
}

template <typename BOOL_T,
          typename std::enable_if<std::is_same<BOOL_T, bool>::value, bool>::type = true>
bool extract_scalar_tensor(executorch::aten::Tensor tensor, BOOL_T* out) {
  if (tensor.numel() != 1 || tensor.scalar_type() != executorch::aten::ScalarType::Bool) {
    return false;
  }
  *out = tensor.const_data_ptr<bool>()[0];
  return true;
}

}  // namespace runtime
}  // namespace executorch

// Abort (ET_CHECK) unless the tensors agree in shape / dtype / strides, or the
// tensor is contiguous; the official checking macros.
#define ET_CHECK_SAME_SHAPE2(a__, b__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_shape(a__, b__), \
               "Tensors " #a__ " and " #b__ " do not have the same shape")
#define ET_CHECK_SAME_SHAPE3(a__, b__, c__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_shape(a__, b__, c__), \
               "Tensors " #a__ ", " #b__ " and " #c__ " do not have the same shape")
#define ET_CHECK_SAME_DTYPE2(a__, b__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_dtype(a__, b__), \
               "Tensors " #a__ " and " #b__ " do not have the same dtype")
#define ET_CHECK_SAME_DTYPE3(a__, b__, c__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_dtype(a__, b__, c__), \
               "Tensors " #a__ ", " #b__ " and " #c__ " do not have the same dtype")
#define ET_CHECK_SAME_SHAPE_AND_DTYPE2(a__, b__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_shape_and_dtype(a__, b__), \
               "Tensors " #a__ " and " #b__ " do not have the same shape and dtype")
#define ET_CHECK_SAME_SHAPE_AND_DTYPE3(a__, b__, c__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_shape_and_dtype(a__, b__, c__), \
               "Tensors " #a__ ", " #b__ " and " #c__ " do not have the same shape and dtype")
#define ET_CHECK_SAME_STRIDES2(a__, b__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_strides(a__, b__), \
               "Tensors " #a__ " and " #b__ " do not have the same strides")
#define ET_CHECK_SAME_STRIDES3(a__, b__, c__)                                   \
  ET_CHECK_MSG(::executorch::runtime::tensors_have_same_strides(a__, b__, c__), \
               "Tensors " #a__ ", " #b__ " and " #c__ " do not have the same strides")
#define ET_CHECK_CONTIGUOUS(a__)                                 \
  ET_CHECK_MSG(::executorch::runtime::tensor_is_contiguous(a__), \
               "Tensor " #a__ " is not contiguous")

namespace torch {
namespace executor {
using ::executorch::runtime::extract_scalar_tensor;
using ::executorch::runtime::getLeadingDims;
using ::executorch::runtime::getTrailingDims;
using ::executorch::runtime::nonempty_size;
using ::executorch::runtime::nonzero_dim;
using ::executorch::runtime::resize_tensor;
using ::executorch::runtime::tensor_has_dim;
using ::executorch::runtime::tensor_is_contiguous;
using ::executorch::runtime::tensor_is_default_dim_order;
using ::executorch::runtime::tensor_is_rank;
using ::executorch::runtime::tensors_have_same_dtype;
using ::executorch::runtime::tensors_have_same_shape;
using ::executorch::runtime::tensors_have_same_shape_and_dtype;
using ::executorch::runtime::tensors_have_same_size_at_dims;
using ::executorch::runtime::tensors_have_same_strides;
}  // namespace executor
}  // namespace torch
