// Shared helpers for data-movement and layout kernels.
//
// Most layout ops (permute, slice, expand, cat, flip, repeat, pad, ...) are
// "read the input through some strides, write the output through others".
// A CopyPlan describes that as nested loops: for every index tuple i,
//   dst[sum(i[d] * dst_strides[d])] = src[sum(i[d] * src_strides[d])]
// with strides in elements. run_copy() moves element bytes (dtype-agnostic);
// run_convert_copy() converts between real dtypes and bool as PyTorch does.
// Plans live on the stack; nothing here allocates.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/portable/util/dtype_dispatch.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

// ETR_KERNEL_CHECK for helpers that return bool: on failure it logs, marks
// the context failed and returns false from the helper.
#define ETR_KERNEL_CHECK_OR_FALSE(ctx, cond, error, ...) \
  do {                                                   \
    if (!(cond)) {                                       \
      ETR_LOG(Error, __VA_ARGS__);                       \
      (ctx).fail(error);                                 \
      return false;                                      \
    }                                                    \
  } while (0)

namespace etr {

// Loops a plan may have: splitting every dim in two (repeat, pixel shuffle)
// still fits.
constexpr size_t kMaxCopyDim = 2 * kTensorMaxDim + 2;

struct CopyPlan {
  size_t ndim = 0;
  int64_t sizes[kMaxCopyDim] = {};
  int64_t dst_strides[kMaxCopyDim] = {};
  int64_t src_strides[kMaxCopyDim] = {};

  // Appends an inner loop; false when kMaxCopyDim loops already exist.
  bool add(int64_t size, int64_t dst_stride, int64_t src_stride) {
    if (ndim >= kMaxCopyDim) return false;
    sizes[ndim] = size;
    dst_strides[ndim] = dst_stride;
    src_strides[ndim] = src_stride;
    ++ndim;
    return true;
  }
};

// Drops size-1 loops and merges loops that are contiguous in both source and
// destination. Returns false when some loop has size 0 (nothing to copy).
bool coalesce_plan(const CopyPlan& in, CopyPlan* out);

// Calls row(dst_offset, src_offset, n, dst_stride, src_stride) for every
// innermost row of the (coalesced) plan; offsets and strides in elements.
template <typename RowFn>
void for_each_row(const CopyPlan& plan, RowFn&& row) {
  CopyPlan p;
  if (!coalesce_plan(plan, &p)) return;
  if (p.ndim == 0) {
    row(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{1}, int64_t{1});
    return;
  }
  const size_t last = p.ndim - 1;
  int64_t idx[kMaxCopyDim] = {};
  int64_t dst_off = 0;
  int64_t src_off = 0;
  while (true) {
    row(dst_off, src_off, p.sizes[last], p.dst_strides[last], p.src_strides[last]);
    size_t d = last;
    while (d > 0) {
      --d;
      dst_off += p.dst_strides[d];
      src_off += p.src_strides[d];
      if (++idx[d] < p.sizes[d]) break;
      dst_off -= p.dst_strides[d] * p.sizes[d];
      src_off -= p.src_strides[d] * p.sizes[d];
      idx[d] = 0;
      if (d == 0) return;
    }
    if (last == 0) return;
  }
}

// Copies element bytes; `dst`/`src` point at the element with index (0,...,0).
void run_copy(const CopyPlan& plan, void* dst, const void* src, size_t elem_size);

// PyTorch-style value conversion without UB: float to integer truncates,
// maps NaN to 0 and wraps through int64 (so -1.0 -> 255 for uint8); to bool
// is "!= 0"; double to float saturates to +-inf.
template <typename To, typename From>
To convert_value(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (std::is_floating_point<From>::value && std::is_integral<To>::value) {
    if (std::isnan(v)) return To(0);
    const double t = std::trunc(static_cast<double>(v));
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    const int64_t i = t >= kLimit   ? std::numeric_limits<int64_t>::max()
                      : t < -kLimit ? std::numeric_limits<int64_t>::min()
                                    : static_cast<int64_t>(t);
    return static_cast<To>(i);
  } else if constexpr (std::is_same<To, float>::value && std::is_same<From, double>::value) {
    constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
    if (v > kMax)
      return v < 3.4028235677973366e38 ? std::numeric_limits<float>::max()
                                       : std::numeric_limits<float>::infinity();
    if (v < -kMax)
      return v > -3.4028235677973366e38 ? -std::numeric_limits<float>::max()
                                        : -std::numeric_limits<float>::infinity();
    return static_cast<float>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Like run_copy, converting from src_type to dst_type (real types and bool).
// Returns false when either dtype is unsupported.
bool run_convert_copy(const CopyPlan& plan, void* dst, ScalarType dst_type, const void* src,
                      ScalarType src_type);

// Fills a (contiguous or not) tensor view described by `plan`'s dst side with
// `value` converted to `dtype`. Returns false for unsupported dtypes.
bool fill_with_scalar(const CopyPlan& plan, void* dst, ScalarType dtype, const Scalar& value);

// Normalises a possibly negative dim against `rank` (a 0-d tensor accepts
// -1 and 0, as in PyTorch). False when out of range.
bool wrap_dim(int64_t dim, size_t rank, size_t* out);

// Row-major strides of `sizes` (n entries) into `strides`.
void contiguous_strides(const int64_t* sizes, size_t n, int64_t* strides);

// True when the tensor's memory is laid out like the default dim order
// (size-1 dims may carry any stride).
bool is_default_layout(const Tensor& t);

// Copies dst <- src elementwise for tensors of identical sizes (any dim
// orders, same dtype).
void copy_same_shape(Tensor& dst, const Tensor& src);

// Copies `src` into `dst` in row-major logical order when their numels match
// but shapes differ (view/squeeze/unsqueeze). False when both have a
// non-default layout (unsupported).
bool copy_reshape(Tensor& dst, const Tensor& src);

// Resizes `t` to sizes[0..n). Returns the resize error.
[[nodiscard]] inline Error resize_to(Tensor& t, const int64_t* sizes, size_t n) {
  return resize_tensor(t, Span<const int64_t>(sizes, n));
}

// Kernel-side checks shared by the layout ops. Each logs a message naming
// `op`, fails the context and returns false on error.
// out has the same (valid) dtype as self.
bool check_copy_dtypes(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& out);
// Resizes out to sizes[0..n).
bool resize_out(KernelContext& ctx, const char* op, Tensor& out, const int64_t* sizes, size_t n);
// Resizes out to the sizes of `like`.
bool resize_out_like(KernelContext& ctx, const char* op, Tensor& out, const Tensor& like);
// Wraps `dim` against `rank` (0-d accepts -1 and 0).
bool wrap_dim_checked(KernelContext& ctx, const char* op, int64_t dim, size_t rank, size_t* out);

// Formats sizes as "[2,3]" into a stack buffer, for error messages.
struct ShapeStr {
  char text[96];
  const char* c_str() const { return text; }
};
ShapeStr shape_str(Span<const int32_t> sizes);
ShapeStr shape_str(Span<const int64_t> sizes);
inline ShapeStr shape_str(const Tensor& t) { return shape_str(t.sizes()); }

}  // namespace etr
