// Compatibility layer (extension/compat): parallel_for for kernels written
// against the official API. Kernels registered through the official API run
// on the calling thread (as in an official build without ET_USE_THREADPOOL):
// parallel_for calls `func` over the whole range.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/platform/assert.h>

#include <cinttypes>
#include <cstdint>

namespace executorch {
namespace extension {
namespace internal {

// Calls f(begin, end) once; false (logged) for a bad range or grain size.
template <typename Func>
inline bool parallel_for_no_threadpool(const int64_t begin, const int64_t end,
                                       const int64_t grain_size, const Func& f) {
  ET_CHECK_OR_RETURN_FALSE(begin >= 0 && end >= 0 && end >= begin,
                           "begin = %" PRId64 ", end = %" PRId64, begin, end);
  ET_CHECK_OR_RETURN_FALSE(grain_size > 0, "grain_size = %" PRId64, grain_size);
  if (begin < end) f(begin, end);
  return true;
}

constexpr int64_t GRAIN_SIZE = 32768;

}  // namespace internal

template <typename Func>
bool parallel_for(const int64_t begin, const int64_t end, const int64_t grain_size,
                  const Func& func) {
  return internal::parallel_for_no_threadpool(begin, end, grain_size, func);
}

inline int64_t get_thread_num() { return 0; }
inline int64_t get_thread_count() { return 1; }
inline void set_thread_num(int64_t thread_num) {
  (void)thread_num;
  ET_DCHECK_MSG(false, "cannot set_thread_num without threading support!");
}

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::get_thread_num;
using ::executorch::extension::parallel_for;
using ::executorch::extension::set_thread_num;
}  // namespace executor
}  // namespace torch
