// update_cache.out and update_cache_with_indices.out: new keys or values
// [B, S, H, D] copied into a cache [B, max_S, H, D] in place, at consecutive
// positions from start_pos or at the positions an index tensor gives. Every
// position is checked against max_S before anything is written.
#include <cstring>

#include "kernels/llm/llm.h"
#include "kernels/llm/util/llm_util.h"

namespace etr {

Error update_cache_prepare(KernelPrepareContext& ctx, const Tensor& value, Tensor& cache, int64_t,
                           Tensor&) {
  return llm::check_cache_update_args(ctx.op_name(), "value", value, "cache", cache);
}

void update_cache_out(KernelContext& ctx, const Tensor& value, Tensor& cache, int64_t start_pos,
                      Tensor&) {
  ETR_KERNEL_TRY(ctx,
                 llm::check_cache_window(ctx.op_name(), "value", value, "cache", cache, start_pos));
  llm::copy_into_cache(value, cache, start_pos);
}

Error update_cache_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& value,
                                        Tensor& cache, int64_t, const Tensor& indices, Tensor&) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(llm::check_cache_update_args(op, "value", value, "cache", cache));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, "indices", indices, 2));
  return llm::check_contiguous(op, "indices", indices);
}

void update_cache_with_indices_out(KernelContext& ctx, const Tensor& value, Tensor& cache, int64_t,
                                   const Tensor& indices, Tensor&) {
  const char* op = ctx.op_name();
  ETR_KERNEL_CHECK(ctx,
                   value.size(0) == cache.size(0) && value.size(2) == cache.size(2) &&
                       value.size(3) == cache.size(3),
                   Error::InvalidArgument,
                   "%s: value %s and cache %s differ in batch, heads or head_dim (dims 0, 2, 3)",
                   op, llm::ShapeText(value).c_str(), llm::ShapeText(cache).c_str());
  ETR_KERNEL_CHECK(ctx, indices.size(0) == value.size(0) && indices.size(1) == value.size(1),
                   Error::InvalidArgument, "%s: indices %s do not match value %s in dims 0 and 1",
                   op, llm::ShapeText(indices).c_str(), llm::ShapeText(value).c_str());
  const int64_t batch = value.size(0);
  const int64_t seq = value.size(1);
  const int64_t max_seq = cache.size(1);
  const int64_t* idx = indices.const_data_ptr<int64_t>();
  // Every index first, so that a bad one leaves the cache untouched.
  for (int64_t i = 0; i < batch * seq; ++i) {
    ETR_KERNEL_CHECK(ctx, idx[i] >= 0 && idx[i] < max_seq, Error::InvalidArgument,
                     "%s: indices[%lld][%lld] = %lld is outside cache %s (max_seq %lld)", op,
                     static_cast<long long>(i / seq), static_cast<long long>(i % seq),
                     static_cast<long long>(idx[i]), llm::ShapeText(cache).c_str(),
                     static_cast<long long>(max_seq));
  }
  const size_t row = static_cast<size_t>(value.size(2)) * static_cast<size_t>(value.size(3)) *
                     value.element_size();
  if (row == 0) return;
  const uint8_t* src = static_cast<const uint8_t*>(value.const_data());
  uint8_t* dst = static_cast<uint8_t*>(cache.mutable_data());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t s = 0; s < seq; ++s) {
      const size_t to = static_cast<size_t>(b * max_seq + idx[b * seq + s]) * row;
      const size_t from = static_cast<size_t>(b * seq + s) * row;
      std::memmove(dst + to, src + from, row);
    }
  }
}

}  // namespace etr
