// The llama:: custom operators that ExecuTorch's LLM exports call (KV-cache
// updates and scaled dot-product attention over a cache): declarations and
// the library's table. Parameters follow the schemas of ExecuTorch's
// extension/llm/custom_ops (custom_ops.py, op_sdpa_aot.cpp) in order, outs
// last. Layouts are "sequence at dim 1": a query or new key/value is
// [batch, seq, heads, head_dim] and a cache is [batch, max_seq, heads,
// head_dim], all in the default (contiguous) dim order.
// Prepare steps check dtypes, ranks, layouts and constant arguments; run()
// checks what can change between executes (start_pos, the sequence length
// of dynamic inputs, index values) before it reads or writes anything.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// ---- op_update_cache.cpp: copy new keys or values into a cache in place.
// update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out)
//   value [B, S, H, D] lands in cache[:, start_pos : start_pos + S]; any dtype
//   (value and cache the same); `out` is a placeholder and is not written.
void update_cache_out(KernelContext& ctx, const Tensor& value, Tensor& cache, int64_t start_pos,
                      Tensor& out);
Error update_cache_prepare(KernelPrepareContext& ctx, const Tensor& value, Tensor& cache,
                           int64_t start_pos, Tensor& out);
// update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos,
//   Tensor indices, *, Tensor(b!) out)
//   value[b, s] lands in cache[b, indices[b, s]]; indices is Long [B, S];
//   start_pos is not used (as in ExecuTorch).
void update_cache_with_indices_out(KernelContext& ctx, const Tensor& value, Tensor& cache,
                                   int64_t start_pos, const Tensor& indices, Tensor& out);
Error update_cache_with_indices_prepare(KernelPrepareContext& ctx, const Tensor& value,
                                        Tensor& cache, int64_t start_pos, const Tensor& indices,
                                        Tensor& out);

// ---- op_sdpa.cpp: attention of a query block over the first start_pos + S
// cache positions (Float or Double; q, k, v, mask and out the same dtype).
// custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos,
//   Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None,
//   *, Tensor(a!) out)
//   query [B, S, Hq, D]; key and value caches [B, max_S, Hkv, D] with Hq a
//   multiple of Hkv (query head h reads cache head h / (Hq / Hkv)).
//   is_causal: query row i sees keys 0 .. start_pos + i. attn_mask (2-D
//   [S, start_pos + S], added to the scaled scores; an empty mask counts as
//   none) and is_causal exclude each other. scale defaults to 1/sqrt(D).
//   drpout_p is ignored (inference), as in ExecuTorch. out has query's shape.
void custom_sdpa_out(KernelContext& ctx, const Tensor& query, const Tensor& key,
                     const Tensor& value, int64_t start_pos, const Tensor* attn_mask,
                     double dropout_p, bool is_causal, std::optional<double> scale, Tensor& out);
Error custom_sdpa_prepare(KernelPrepareContext& ctx, const Tensor& query, const Tensor& key,
                          const Tensor& value, int64_t start_pos, const Tensor* attn_mask,
                          double dropout_p, bool is_causal, std::optional<double> scale,
                          Tensor& out);
// sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache,
//   Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None,
//   float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(c!) out)
//   update_cache(key, key_cache, start_pos), the same for value, then
//   custom_sdpa(query, key_cache, value_cache, start_pos, ...). seq_len only
//   bounds-checks (start_pos + seq_len <= max_S); the copies use key's length.
void sdpa_with_kv_cache_out(KernelContext& ctx, const Tensor& query, const Tensor& key,
                            const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                            int64_t start_pos, int64_t seq_len, const Tensor* attn_mask,
                            double dropout_p, bool is_causal, std::optional<double> scale,
                            Tensor& out);
Error sdpa_with_kv_cache_prepare(KernelPrepareContext& ctx, const Tensor& query, const Tensor& key,
                                 const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                                 int64_t start_pos, int64_t seq_len, const Tensor* attn_mask,
                                 double dropout_p, bool is_causal, std::optional<double> scale,
                                 Tensor& out);

// The library's table (see kernel_table.cpp). The cache updates move bytes
// of any dtype; the attention kernels take Float and Double (their prepare
// steps check each argument's dtype exactly).
inline constexpr KernelEntry kLlmKernels[] = {
    make_kernel<&update_cache_out, &update_cache_prepare>("llama::update_cache.out", kAllTypes),
    make_kernel<&update_cache_with_indices_out, &update_cache_with_indices_prepare>(
        "llama::update_cache_with_indices.out", kAllTypes),
    make_kernel<&custom_sdpa_out, &custom_sdpa_prepare>("llama::custom_sdpa.out", kFloatingTypes),
    make_kernel<&sdpa_with_kv_cache_out, &sdpa_with_kv_cache_prepare>(
        "llama::sdpa_with_kv_cache.out", kFloatingTypes),
};

}  // namespace etr
