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

// ---- op_quantized_sdpa.cpp: attention over an int8 KV cache (the exporter's
// quantize_kv_cache path). Output is Float.
// custom_quantized_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos,
//   Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None,
//   Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None,
//   Tensor? k_scales=None, Tensor? v_zero_points=None, Tensor? v_scales=None,
//   bool is_seq_at_dim_2=False, *, Tensor(a!) out)
//   query, key, value are Char; each row of D values has its own zero point
//   (Char) and scale (Float): x = (q - zero_point) * scale, one per (batch,
//   position, head): the six tensors (all required) are shaped like their
//   tensor in dims 0-2, zero points and scales alike; of their last dim (1 in
//   exports) the first element is used, as in ExecuTorch. Layout: [B, S, H, D] (query) and
//   [B, max_S, Hkv, D] (caches), or with is_seq_at_dim_2 [B, H, S, D] and
//   [B, Hkv, max_S, D]. Without attn_mask, query row i sees cache positions
//   0 .. start_pos + S - 1, or 0 .. start_pos + i when is_causal; with one (2-D
//   Float [S, max_S], added to the scaled scores; exclusive with is_causal)
//   every cache position is seen and start_pos is not used, as in ExecuTorch.
//   GQA as custom_sdpa. out (Float) has query's shape and layout.
void custom_quantized_sdpa_out(KernelContext& ctx, const Tensor& query, const Tensor& key,
                               const Tensor& value, int64_t start_pos, const Tensor* attn_mask,
                               double dropout_p, bool is_causal, std::optional<double> scale,
                               const Tensor* q_zero_points, const Tensor* q_scales,
                               const Tensor* k_zero_points, const Tensor* k_scales,
                               const Tensor* v_zero_points, const Tensor* v_scales,
                               bool is_seq_at_dim_2, Tensor& out);
Error custom_quantized_sdpa_prepare(KernelPrepareContext& ctx, const Tensor& query,
                                    const Tensor& key, const Tensor& value, int64_t start_pos,
                                    const Tensor* attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, const Tensor* q_zero_points,
                                    const Tensor* q_scales, const Tensor* k_zero_points,
                                    const Tensor* k_scales, const Tensor* v_zero_points,
                                    const Tensor* v_scales, bool is_seq_at_dim_2, Tensor& out);

// ---- op_fast_hadamard_transform.cpp: SpinQuant's rotation.
// fast_hadamard_transform.out(Tensor mat, *, Tensor(a!) out)
//   Each row of the last dim (n values, n a power of two) becomes
//   H_n x / sqrt(n), H_n the Sylvester Hadamard matrix (H_n[i][j] =
//   (-1)^popcount(i & j)); for n = 28 * m (m a power of two), as ExecuTorch's
//   kernel: (H28 (x) H_m / sqrt(m)) x with its fixed 28x28 Hadamard matrix
//   (not normalized by 1/sqrt(28)). Float, Double or Half; out has mat's
//   shape and dtype. Any other n is InvalidArgument.
void fast_hadamard_transform_out(KernelContext& ctx, const Tensor& mat, Tensor& out);
Error fast_hadamard_transform_prepare(KernelPrepareContext& ctx, const Tensor& mat, Tensor& out);

// The library's table (see kernel_table.cpp). The cache updates move bytes
// of any dtype; the float attention kernels take Float, Double, BFloat16 and
// Half (the 16-bit ones computed in float), the
// quantized one Char and Float, the Hadamard transform Float, Double and Half
// (their prepare steps check each argument's dtype exactly).
inline constexpr KernelEntry kLlmKernels[] = {
    make_kernel<&update_cache_out, &update_cache_prepare>("llama::update_cache.out", kAllTypes),
    make_kernel<&update_cache_with_indices_out, &update_cache_with_indices_prepare>(
        "llama::update_cache_with_indices.out", kAllTypes),
    make_kernel<&custom_sdpa_out, &custom_sdpa_prepare>(
        "llama::custom_sdpa.out",
        kFloatingTypes | DtypeSet::of(ScalarType::BFloat16, ScalarType::Half)),
    make_kernel<&sdpa_with_kv_cache_out, &sdpa_with_kv_cache_prepare>(
        "llama::sdpa_with_kv_cache.out",
        kFloatingTypes | DtypeSet::of(ScalarType::BFloat16, ScalarType::Half)),
    make_kernel<&custom_quantized_sdpa_out, &custom_quantized_sdpa_prepare>(
        "llama::custom_quantized_sdpa.out", DtypeSet::of(ScalarType::Char, ScalarType::Float)),
    make_kernel<&fast_hadamard_transform_out, &fast_hadamard_transform_prepare>(
        "llama::fast_hadamard_transform.out", kFloatingTypes | DtypeSet::of(ScalarType::Half)),
};

}  // namespace etr
