#include "kernels/llm/util/llm_util.h"

#include <cstdio>
#include <cstring>

namespace etr {
namespace llm {

ShapeText::ShapeText(const Tensor& t) {
  size_t at = 0;
  text[at++] = '[';
  for (size_t d = 0; d < t.dim() && d < 15; ++d) {
    const int n = std::snprintf(text + at, sizeof(text) - at, d == 0 ? "%lld" : ", %lld",
                                static_cast<long long>(t.size(d)));
    if (n < 0 || static_cast<size_t>(n) >= sizeof(text) - at) break;
    at += static_cast<size_t>(n);
  }
  if (at + 2 > sizeof(text)) at = sizeof(text) - 2;
  text[at++] = ']';
  text[at] = '\0';
}

Error check_dtype(const char* op, const char* name, const Tensor& t, ScalarType dtype) {
  ETR_CHECK_OR_FAIL(t.dtype() == dtype, Error::InvalidArgument, "%s: %s has dtype %s, expected %s",
                    op, name, to_string(t.dtype()), to_string(dtype));
  return Error::Ok;
}

Error check_rank(const char* op, const char* name, const Tensor& t, size_t rank) {
  ETR_CHECK_OR_FAIL(t.dim() == rank, Error::InvalidArgument, "%s: %s %s has %zu dims, expected %zu",
                    op, name, ShapeText(t).c_str(), t.dim(), rank);
  return Error::Ok;
}

Error check_contiguous(const char* op, const char* name, const Tensor& t) {
  ETR_CHECK_OR_FAIL(t.is_contiguous_order(), Error::NotSupported,
                    "%s: %s %s is not in the default dim order", op, name, ShapeText(t).c_str());
  return Error::Ok;
}

Error check_dense(const char* op, const char* name, const Tensor& t) {
  int64_t expected = 1;
  for (size_t d = t.dim(); d-- > 0;) {
    ETR_CHECK_OR_FAIL(t.size(d) <= 1 || t.stride(d) == expected, Error::NotSupported,
                      "%s: %s %s is not laid out in the default dim order (dim %zu has stride "
                      "%lld, expected %lld)",
                      op, name, ShapeText(t).c_str(), d, static_cast<long long>(t.stride(d)),
                      static_cast<long long>(expected));
    expected *= t.size(d);
  }
  return Error::Ok;
}

Error check_cache_update_args(const char* op, const char* value_name, const Tensor& value,
                              const char* cache_name, const Tensor& cache) {
  ETR_RETURN_IF_ERROR(check_rank(op, value_name, value, 4));
  ETR_RETURN_IF_ERROR(check_rank(op, cache_name, cache, 4));
  ETR_CHECK_OR_FAIL(value.dtype() == cache.dtype(), Error::InvalidArgument,
                    "%s: %s has dtype %s but %s has dtype %s", op, value_name,
                    to_string(value.dtype()), cache_name, to_string(cache.dtype()));
  ETR_RETURN_IF_ERROR(check_contiguous(op, value_name, value));
  return check_contiguous(op, cache_name, cache);
}

Error check_cache_window(const char* op, const char* value_name, const Tensor& value,
                         const char* cache_name, const Tensor& cache, int64_t start_pos) {
  ETR_CHECK_OR_FAIL(value.size(0) == cache.size(0) && value.size(2) == cache.size(2) &&
                        value.size(3) == cache.size(3),
                    Error::InvalidArgument,
                    "%s: %s %s and %s %s differ in batch, heads or head_dim (dims 0, 2, 3)", op,
                    value_name, ShapeText(value).c_str(), cache_name, ShapeText(cache).c_str());
  const int64_t seq = value.size(1);
  const int64_t max_seq = cache.size(1);
  // start_pos <= max_seq - seq cannot overflow: both sizes are int32 values.
  ETR_CHECK_OR_FAIL(start_pos >= 0 && start_pos <= max_seq - seq, Error::InvalidArgument,
                    "%s: start_pos %lld + %s length %lld exceeds %s %s (max_seq %lld)", op,
                    static_cast<long long>(start_pos), value_name, static_cast<long long>(seq),
                    cache_name, ShapeText(cache).c_str(), static_cast<long long>(max_seq));
  return Error::Ok;
}

void copy_into_cache(const Tensor& value, Tensor& cache, int64_t start_pos) {
  const size_t elem = value.element_size();
  const size_t row = static_cast<size_t>(value.size(2)) * static_cast<size_t>(value.size(3)) * elem;
  const size_t value_batch = row * static_cast<size_t>(value.size(1));
  const size_t cache_batch = row * static_cast<size_t>(cache.size(1));
  const uint8_t* src = static_cast<const uint8_t*>(value.const_data());
  uint8_t* dst = static_cast<uint8_t*>(cache.mutable_data());
  if (value_batch == 0) return;
  for (int64_t b = 0; b < value.size(0); ++b) {
    std::memmove(dst + static_cast<size_t>(b) * cache_batch + static_cast<size_t>(start_pos) * row,
                 src + static_cast<size_t>(b) * value_batch, value_batch);
  }
}

}  // namespace llm
}  // namespace etr
