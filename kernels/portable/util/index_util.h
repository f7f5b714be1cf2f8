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

}  // namespace etr
