// Shared helpers for data-movement and layout kernels.
//
// Most layout ops (permute, slice, expand, cat, flip, repeat, pad, ...) are
// "read the input through some strides, write the output through others".
// A CopyPlan describes that as nested loops: for every index tuple i,
//   dst[sum(i[d] * dst_strides[d])] = src[sum(i[d] * src_strides[d])]
// with strides in elements. run_copy() moves element bytes (dtype-agnostic);
// run_convert_copy() converts between real dtypes and bool with convert<To>.
// Plans live on the stack; nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

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

// Like run_copy, converting from src_type to dst_type (real types and bool,
// with convert<To>). Returns false when the dtypes differ and either is not
// one of kRealAndBoolTypes.
[[nodiscard]] bool run_convert_copy(const CopyPlan& plan, void* dst, ScalarType dst_type,
                                    const void* src, ScalarType src_type);

// Fills a (contiguous or not) tensor view described by `plan`'s dst side with
// `value` converted to `dtype`. Returns false for unsupported dtypes.
[[nodiscard]] bool fill_with_scalar(const CopyPlan& plan, void* dst, ScalarType dtype,
                                    const Scalar& value);

// Row-major strides of `sizes` (n entries) into `strides`.
void contiguous_strides(const int64_t* sizes, size_t n, int64_t* strides);

// Copies dst <- src elementwise for tensors of identical sizes (any dim
// orders, same dtype).
void copy_same_shape(Tensor& dst, const Tensor& src);

// Copies `src` into `dst` in row-major logical order when their numels match
// but shapes differ (view/squeeze/unsqueeze). False when both have a
// non-default layout (unsupported).
bool copy_reshape(Tensor& dst, const Tensor& src);

// Copies self[..., start : start + len*step : step, ...] along `dim` into
// out (already sized). With `drop_dim`, out lacks that dim (select) and len
// must be 1.
void copy_range(const Tensor& self, size_t dim, int64_t start, int64_t len, int64_t step,
                bool drop_dim, Tensor& out);

// The load-time checks of a range copy's output, for prepare steps: out has
// self's dtype (InvalidType) and self's rank, one less with drop_dim
// (InvalidArgument).
[[nodiscard]] Error check_range_output(const char* op, const Tensor& self, bool drop_dim,
                                       const Tensor& out);

// The output of a range copy: resizes out (of self's dtype, checked at
// load; another is the safety net's Error::Internal) to self's sizes with
// dim `dim` set to `len` (or removed when drop_dim).
[[nodiscard]] Error resize_range_output(const char* op, const Tensor& self, size_t dim, int64_t len,
                                        bool drop_dim, Tensor& out);

}  // namespace etr
