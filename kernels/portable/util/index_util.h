// Index tensors of the gather kernels (indexing.h): Long or Int, in the
// default dim order, every entry range-checked before anything is written.
#pragma once

#include <cstdint>

#include "kernels/portable/util/checks.h"

namespace etr {

constexpr DtypeSet kIndexTypes = DtypeSet::of(ScalarType::Long, ScalarType::Int);

// Entry i of Long or Int index data.
inline int64_t load_index(const void* data, ScalarType t, int64_t i) {
  return t == ScalarType::Long ? static_cast<const int64_t*>(data)[i]
                               : static_cast<const int32_t*>(data)[i];
}

// For prepare steps: InvalidType unless `index` is Long or Int.
[[nodiscard]] Error check_index_dtype(const char* op, const Tensor& index);

// For run(): `index` is in the default dim order and every entry lies in
// [lo, size) where lo is -size when negative indices are allowed, else 0.
// Its dtype was checked at load (check_index_dtype); another one is the
// safety net's Error::Internal.
[[nodiscard]] Error check_indices(const char* op, const Tensor& index, int64_t size,
                                  bool allow_negative);

// Advanced indexing (index.Tensor, index_put): an OptionalTensorList of
// Long/Int index tensors and Bool/Byte masks over self's leading dims.

// True for a Bool/Byte mask (it stands for its nonzero coordinates).
bool is_index_mask(const Tensor& t);

// One indexed self dim: index data viewed with its own sizes and strides (a
// mask contributes one column of its nonzero coordinates), plus its strides
// over the broadcast index shape.
struct IndexSource {
  size_t dim = 0;
  const void* data = nullptr;
  ScalarType type = ScalarType::Long;
  size_t rank = 0;
  int64_t sizes[kTensorMaxDim] = {};
  int64_t strides[kTensorMaxDim] = {};
  int64_t bstrides[kTensorMaxDim] = {};
};

// The indexed positions: sources, the broadcast index shape and the result's
// layout [pre, broadcast, post]. The self dims that are not indexed stay in
// front (pre) only when they come before an adjacent index block, as in
// PyTorch; all others follow (post).
struct IndexPlan {
  size_t count = 0;
  IndexSource src[kTensorMaxDim];
  size_t brank = 0;
  int64_t bsizes[kTensorMaxDim] = {};
  size_t num_pre = 0, num_post = 0;
  size_t pre[kTensorMaxDim] = {};
  size_t post[kTensorMaxDim] = {};
  size_t rank() const { return num_pre + brank + num_post; }
};

// The op's own check of a mask's layout before it is read (mask over self
// dims [d, d + mask.dim())).
using MaskLayoutCheck = Error (*)(const char* op, const Tensor& self, const Tensor& mask, size_t d);

// For run(): builds `p` from `indices` (the prepare step checked dtypes and
// that every index fits within self's rank). Range-checks every index,
// expands masks into temp memory and broadcasts the index shapes.
[[nodiscard]] Error build_index_plan(KernelContext& ctx, const char* op, const Tensor& self,
                                     OptionalTensorList indices, MaskLayoutCheck check_mask,
                                     IndexPlan* p);

// The result size at result dim r.
int64_t index_result_size(const IndexPlan& p, const Tensor& self, size_t r);

// Self's offset (in elements) selected by the index sources at broadcast
// coordinate b[0, p.brank).
int64_t indexed_offset(const IndexPlan& p, const Tensor& self, const int64_t* b);

}  // namespace etr
