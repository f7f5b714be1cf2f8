// Tensor: a strided view of typed data plus its shape metadata. Not final:
// the official API's TensorImpl (extension/compat) derives from it, adding
// only a constructor and storage.
//
// A Tensor never owns anything: sizes, dim order, strides and data all point
// to memory owned by someone else (the method allocator for program values,
// the caller for user-made tensors) that must outlive the Tensor.
//
// Layout rules follow the program format: `dim_order` lists dimensions from
// outermost to innermost; strides are derived from sizes and dim order and
// never stored in files.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace etr {

constexpr size_t kTensorMaxDim = 16;

enum class ShapeDynamism : uint8_t {
  Static = 0,          // sizes never change
  DynamicBound = 1,    // sizes may shrink below the planned bound (capacity)
  DynamicUnbound = 2,  // not supported by this runtime
  // The official API's spellings of the same values (TensorShapeDynamism).
  STATIC = Static,
  DYNAMIC_BOUND = DynamicBound,
  DYNAMIC_UNBOUND = DynamicUnbound
};

class Tensor {
 public:
  Tensor() = default;
  // A view over caller-owned arrays of length `dim`. `strides` is filled in
  // from sizes and dim order by this constructor. `dim_order` may be null for
  // the default (contiguous) order only if dim == 0. Does not take ownership;
  // every pointer must outlive the Tensor. Returns a tensor whose
  // capacity_bytes() equals nbytes().
  Tensor(ScalarType dtype, size_t dim, int32_t* sizes, uint8_t* dim_order, int64_t* strides,
         void* data, ShapeDynamism dynamism = ShapeDynamism::Static);
  // The official TensorImpl constructor: a view over caller-owned sizes, dim
  // order and strides (none is copied or written), with the official
  // argument order. The strides must be the dense strides of the sizes in
  // that dim order (etr tensors are dense); dim_order and strides may be null
  // only when dim == 0. A tensor whose arguments break these rules is logged
  // and left empty: numel() and capacity_bytes() 0, no data, rank 0.
  Tensor(ScalarType dtype, ptrdiff_t dim, int32_t* sizes, void* data = nullptr,
         uint8_t* dim_order = nullptr, int64_t* strides = nullptr,
         ShapeDynamism dynamism = ShapeDynamism::Static);

  ScalarType scalar_type() const { return dtype_; }
  ScalarType dtype() const { return dtype_; }
  size_t dim() const { return dim_; }
  int64_t size(size_t d) const { return sizes_[d]; }
  int64_t stride(size_t d) const { return strides_[d]; }
  Span<const int32_t> sizes() const { return {sizes_, dim_}; }
  Span<const uint8_t> dim_order() const { return {dim_order_, dim_}; }
  Span<const int64_t> strides() const { return {strides_, dim_}; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return ::etr::element_size(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  ShapeDynamism shape_dynamism() const { return dynamism_; }
  // Bytes available behind data(); sizes may never grow past it.
  size_t capacity_bytes() const { return capacity_; }

  void* mutable_data() const { return data_; }
  const void* const_data() const { return data_; }
  template <typename T>
  T* data_ptr() const {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* const_data_ptr() const {
    return static_cast<const T*>(data_);
  }

  // True when dim order is 0, 1, ..., dim-1.
  bool is_contiguous_order() const;

  // Runtime internals (the executor and helpers set these; kernels should not).
  void set_data(void* data, size_t capacity) {
    data_ = data;
    capacity_ = capacity;
  }
  void set_capacity(size_t capacity) { capacity_ = capacity; }
  int32_t* mutable_sizes() { return sizes_; }

  // Sets fields directly; strides must already be consistent.
  void init_raw(ScalarType dtype, size_t dim, int32_t* sizes, uint8_t* dim_order, int64_t* strides,
                void* data, size_t capacity, ShapeDynamism dynamism, int64_t numel) {
    dtype_ = dtype;
    dim_ = static_cast<uint8_t>(dim);
    sizes_ = sizes;
    dim_order_ = dim_order;
    strides_ = strides;
    data_ = data;
    capacity_ = capacity;
    dynamism_ = dynamism;
    numel_ = numel;
  }

  // Recomputes strides and numel after sizes changed. Returns false on overflow.
  bool refresh_strides();

 private:
  ScalarType dtype_ = ScalarType::Float;
  uint8_t dim_ = 0;
  ShapeDynamism dynamism_ = ShapeDynamism::Static;
  int32_t* sizes_ = nullptr;
  uint8_t* dim_order_ = nullptr;
  int64_t* strides_ = nullptr;
  void* data_ = nullptr;
  size_t capacity_ = 0;
  int64_t numel_ = 1;
};

// Alignment a tensor's data pointer needs for its dtype (element size, at most 8).
constexpr size_t tensor_data_alignment(ScalarType t) {
  return element_size(t) == 0 ? 1 : (element_size(t) > 8 ? 8 : element_size(t));
}

// Computes strides for sizes in `dim_order`; numel is written to *numel. Fails
// (returns false) when dim_order is not a permutation or the element count
// overflows int64.
bool compute_strides(Span<const int32_t> sizes, Span<const uint8_t> dim_order, int64_t* strides,
                     int64_t* numel);

// Changes a tensor's sizes (rank must stay the same). A static tensor accepts
// only its current sizes; a bounded dynamic tensor accepts any sizes whose
// byte size fits its capacity. Kernels call this on their outputs.
[[nodiscard]] Error resize_tensor(Tensor& t, Span<const int64_t> new_sizes);
[[nodiscard]] Error resize_tensor(Tensor& t, Span<const int32_t> new_sizes);

// True when both tensors have identical sizes.
inline bool same_shape(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t i = 0; i < a.dim(); ++i) {
    if (a.size(i) != b.size(i)) return false;
  }
  return true;
}

// True when both tensors have identical sizes and strides: element i of one
// sits at element offset i of the other (tensors are dense).
inline bool same_layout(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (size_t i = 0; i < a.dim(); ++i) {
    if (a.size(i) != b.size(i) || a.stride(i) != b.stride(i)) return false;
  }
  return true;
}

}  // namespace etr
