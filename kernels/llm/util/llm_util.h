// Checks and the cache copy shared by the LLM kernels. Every check logs a
// message naming the operator, the argument and the sizes involved, and
// returns the error; none of them touches tensor data.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace etr {
namespace llm {

// A tensor's sizes as text, "[1, 5, 4, 8]" (cut short past 15 dims).
struct ShapeText {
  explicit ShapeText(const Tensor& t);
  const char* c_str() const { return text; }
  char text[128];
};

// `t` has dtype `dtype`; InvalidArgument otherwise.
Error check_dtype(const char* op, const char* name, const Tensor& t, ScalarType dtype);
// `t` has `rank` dims; InvalidArgument otherwise.
Error check_rank(const char* op, const char* name, const Tensor& t, size_t rank);
// `t` is in the default (contiguous) dim order; NotSupported otherwise.
Error check_contiguous(const char* op, const char* name, const Tensor& t);
// `t`'s memory is laid out as in the default dim order: every dim of size
// above 1 has the default stride (a size-1 dim may sit anywhere in the dim
// order, as exporters put it when strides tie); NotSupported otherwise. Sizes
// can change between executes: check at load and at run.
Error check_dense(const char* op, const char* name, const Tensor& t);

// The load-time checks of a cache update: value and cache rank 4, the same
// dtype, contiguous.
Error check_cache_update_args(const char* op, const char* value_name, const Tensor& value,
                              const char* cache_name, const Tensor& cache);

// The run-time checks of a cache update from start_pos: batch, heads and
// head_dim equal, 0 <= start_pos and start_pos + value.size(1) <= max_S.
Error check_cache_window(const char* op, const char* value_name, const Tensor& value,
                         const char* cache_name, const Tensor& cache, int64_t start_pos);

// Copies value [B, S, H, D] into cache [B, max_S, H, D] at positions
// start_pos .. start_pos + S - 1 (check_cache_window must have passed).
void copy_into_cache(const Tensor& value, Tensor& cache, int64_t start_pos);

}  // namespace llm
}  // namespace etr
