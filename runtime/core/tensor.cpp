#include "runtime/core/tensor.h"

#include "runtime/core/checked_math.h"

namespace etr {

bool compute_strides(Span<const int32_t> sizes, Span<const uint8_t> dim_order, int64_t* strides,
                     int64_t* numel) {
  const size_t dim = sizes.size();
  if (dim_order.size() != dim || dim > kTensorMaxDim) return false;
  uint32_t seen = 0;
  for (size_t i = 0; i < dim; ++i) {
    const uint8_t d = dim_order[i];
    if (d >= dim || (seen & (1u << d)) != 0) return false;
    seen |= 1u << d;
  }
  int64_t running = 1;
  int64_t count = 1;
  for (size_t i = dim; i-- > 0;) {
    const uint8_t d = dim_order[i];
    const int64_t s = sizes[d];
    if (s < 0) return false;
    strides[d] = running;
    // A zero-sized dim leaves the running stride unchanged (format rule).
    if (s != 0 && !checked_mul_i64(running, s, &running)) return false;
    if (!checked_mul_i64(count, s, &count)) return false;
  }
  *numel = count;
  return true;
}

Tensor::Tensor(ScalarType dtype, size_t dim, int32_t* sizes, uint8_t* dim_order, int64_t* strides,
               void* data, ShapeDynamism dynamism)
    : dtype_(dtype),
      dim_(static_cast<uint8_t>(dim)),
      dynamism_(dynamism),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data) {
  if (!refresh_strides()) {
    numel_ = 0;
  }
  capacity_ = nbytes();
}

Tensor::Tensor(ScalarType dtype, ptrdiff_t dim, int32_t* sizes, void* data, uint8_t* dim_order,
               int64_t* strides, ShapeDynamism dynamism)
    : dtype_(dtype), dynamism_(dynamism), numel_(0) {
  if (dim < 0 || static_cast<size_t>(dim) > kTensorMaxDim) {
    ETR_LOG(Error, "Tensor: rank %td is outside [0, %zu]", dim, kTensorMaxDim);
    return;
  }
  if (dim > 0 && (sizes == nullptr || dim_order == nullptr || strides == nullptr)) {
    ETR_LOG(Error, "Tensor: a rank-%td tensor needs sizes, dim order and strides", dim);
    return;
  }
  // Check the given strides against the dense strides of sizes in dim order.
  const size_t rank = static_cast<size_t>(dim);
  int64_t expected[kTensorMaxDim];
  int64_t numel = 1;
  if (!compute_strides({sizes, rank}, {dim_order, rank}, expected, &numel)) {
    ETR_LOG(Error,
            "Tensor: invalid sizes or dim order (not a permutation, or the count overflows)");
    return;
  }
  for (size_t i = 0; i < rank; ++i) {
    if (strides[i] != expected[i] && sizes[i] > 1) {
      ETR_LOG(Error, "Tensor: stride %zu is %lld, the dense layout needs %lld", i,
              static_cast<long long>(strides[i]), static_cast<long long>(expected[i]));
      return;
    }
  }
  size_t bytes = 0;
  if (!checked_mul(static_cast<size_t>(numel), ::etr::element_size(dtype), &bytes)) {
    ETR_LOG(Error, "Tensor: byte size of %lld elements overflows", static_cast<long long>(numel));
    return;
  }
  dim_ = static_cast<uint8_t>(rank);
  sizes_ = sizes;
  dim_order_ = dim_order;
  strides_ = strides;
  data_ = data;
  numel_ = numel;
  capacity_ = bytes;
}

bool Tensor::is_contiguous_order() const {
  for (size_t i = 0; i < dim_; ++i) {
    if (dim_order_[i] != i) return false;
  }
  return true;
}

bool Tensor::refresh_strides() {
  int64_t numel = 0;
  if (!compute_strides(sizes(), dim_order(), strides_, &numel)) return false;
  size_t bytes = 0;
  if (!checked_mul(static_cast<size_t>(numel), ::etr::element_size(dtype_), &bytes)) return false;
  numel_ = numel;
  return true;
}

namespace {
template <typename I>
Error resize_impl(Tensor& t, Span<const I> new_sizes) {
  if (new_sizes.size() != t.dim()) {
    ETR_FAIL(Error::InvalidArgument, "resize: rank %zu does not match tensor rank %zu",
             new_sizes.size(), t.dim());
  }
  bool same = true;
  int64_t numel = 1;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    const int64_t s = static_cast<int64_t>(new_sizes[i]);
    if (s < 0 || s > INT32_MAX) {
      ETR_FAIL(Error::InvalidArgument, "resize: size[%zu]=%lld is out of range", i,
               static_cast<long long>(s));
    }
    if (s != t.size(i)) same = false;
    if (!checked_mul_i64(numel, s, &numel)) {
      ETR_FAIL(Error::InvalidArgument, "resize: element count overflows");
    }
  }
  if (same) return Error::Ok;
  if (t.shape_dynamism() == ShapeDynamism::Static) {
    ETR_FAIL(Error::NotSupported, "resize: tensor has static shape and cannot change size");
  }
  size_t bytes = 0;
  if (!checked_mul(static_cast<size_t>(numel), t.element_size(), &bytes) ||
      bytes > t.capacity_bytes()) {
    ETR_FAIL(Error::InvalidArgument,
             "resize: %lld elements exceed the tensor's capacity of %zu bytes",
             static_cast<long long>(numel), t.capacity_bytes());
  }
  int32_t* sizes = t.mutable_sizes();
  for (size_t i = 0; i < new_sizes.size(); ++i) sizes[i] = static_cast<int32_t>(new_sizes[i]);
  if (!t.refresh_strides()) {
    ETR_FAIL(Error::InvalidArgument, "resize: stride computation overflowed");
  }
  return Error::Ok;
}
}  // namespace

Error resize_tensor(Tensor& t, Span<const int64_t> new_sizes) { return resize_impl(t, new_sizes); }
Error resize_tensor(Tensor& t, Span<const int32_t> new_sizes) { return resize_impl(t, new_sizes); }

}  // namespace etr
