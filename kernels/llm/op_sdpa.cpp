// custom_sdpa.out and sdpa_with_kv_cache.out: softmax(q k^T * scale [+ mask]) v
// for each query row over the first start_pos + S cache positions, with
// causal masking relative to start_pos when asked; with a mask ([S, max_S])
// over every cache position. Float and Double natively; BFloat16 and Half
// in float (sdpa_16bit).
//
// The scores are never materialized as a whole: one work item is a batch,
// a query head and a block of up to kQueryBlock query rows; it walks the
// keys in blocks of kKeyBlock and keeps, per row, the running maximum, the
// running sum of exponentials and the running weighted sum of value rows
// (online softmax, as flash attention does), rescaling them when the
// maximum grows. Memory is O(kKeyBlock + kQueryBlock * head_dim) per
// thread, taken from the temp allocator. Work items are split over the
// kernel's thread pool in contiguous ranges, one scratch slot per range; a
// decode step (S = 1) is one row per item, so its heads run in parallel.
// On Float the dot products and value accumulation are AVX2 + FMA where the
// CPU has them (util/attention_math.h) and the exponentials CPU math's.
//
// A row whose every score is -inf (masked out entirely) comes out NaN, as
// it does in ExecuTorch's kernel and in torch's reference attention.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/vec_math.h"
#include "kernels/llm/llm.h"
#include "kernels/llm/util/attention_math.h"
#include "kernels/llm/util/llm_util.h"
#include "runtime/core/half.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace {

constexpr int64_t kQueryBlock = 16;
constexpr int64_t kKeyBlock = 128;

// Sum of a[i] * b[i] and y += a * x for Double (Float uses attention_math.h).
template <typename T>
T dot_any(const T* a, const T* b, int64_t n) {
  T part[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int j = 0; j < 4; ++j) part[j] += a[i + j] * b[i + j];
  }
  T sum = (part[0] + part[2]) + (part[1] + part[3]);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

template <typename T>
void axpy_any(T a, const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

template <typename T>
void dot_rows_any(const T* q, const T* k, int64_t stride, int64_t count, int64_t n, T* out) {
  for (int64_t j = 0; j < count; ++j) out[j] = dot_any(q, k + j * stride, n);
}

template <typename T>
void axpy_rows_any(const T* p, const T* x, int64_t stride, int64_t count, T* y, int64_t n) {
  for (int64_t j = 0; j < count; ++j) axpy_any(p[j], x + j * stride, y, n);
}

// Everything one call needs, checked (check_sdpa_call) before any write.
template <typename T>
struct Attention {
  const T* q = nullptr;  // [B, S, Hq, D]
  const T* k = nullptr;  // [B, max_S, Hkv, D]
  const T* v = nullptr;
  const T* mask = nullptr;  // [S, kv_len] or null
  T* out = nullptr;         // [B, S, Hq, D]
  int64_t batch = 0, q_len = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  int64_t max_seq = 0, start_pos = 0, kv_len = 0;
  bool causal = false;
  T scale = 0;
  // The inner loops over a block of cache rows (attention_math.h): the
  // scores dot(q row, k row), and acc += p * v row for each row in order.
  void (*dot_rows)(const T*, const T*, int64_t, int64_t, int64_t, T*) = nullptr;
  void (*axpy_rows)(const T*, const T*, int64_t, int64_t, T*, int64_t) = nullptr;
};

// The inner loops for T on this CPU.
template <typename T>
void pick_inner_loops(Attention<T>* a) {
  if constexpr (std::is_same<T, float>::value) {
    const bool avx2 = opt::cpu_features().avx2_fma;
    a->dot_rows = avx2 ? &llm::avx2::dot_rows : &llm::generic::dot_rows;
    a->axpy_rows = avx2 ? &llm::avx2::axpy_rows : &llm::generic::axpy_rows;
  } else {
    a->dot_rows = &dot_rows_any<T>;
    a->axpy_rows = &axpy_rows_any<T>;
  }
}

// y[i] = exp(x[i] - shift), returning their sum (the AVX2 body for Float).
template <typename T>
T exp_shift_sum(const T* x, T shift, T* y, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {
    return opt::exp_shift_sum(x, shift, y, static_cast<size_t>(n));
  } else {
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      y[i] = std::exp(x[i] - shift);
      sum += y[i];
    }
    return sum;
  }
}

// Scratch of one slot, in elements of T.
int64_t slot_elements(int64_t head_dim) {
  return kKeyBlock + 2 * kQueryBlock + kQueryBlock * head_dim;
}

// Query rows m0 .. m0 + rows - 1 of batch b and query head h.
template <typename T>
void attend(const Attention<T>& a, int64_t b, int64_t h, int64_t m0, int64_t rows, T* scratch) {
  const int64_t d = a.head_dim;
  T* scores = scratch;
  T* row_max = scores + kKeyBlock;
  T* row_sum = row_max + kQueryBlock;
  T* acc = row_sum + kQueryBlock;
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    row_max[r] = neg_inf;
    row_sum[r] = 0;
  }
  std::memset(acc, 0, static_cast<size_t>(rows * d) * sizeof(T));
  const int64_t kv_head = h / (a.q_heads / a.kv_heads);
  const int64_t kv_row = a.kv_heads * d;  // elements between consecutive positions
  const T* k_base = a.k + (b * a.max_seq * a.kv_heads + kv_head) * d;
  const T* v_base = a.v + (b * a.max_seq * a.kv_heads + kv_head) * d;
  const int64_t q_row = a.q_heads * d;
  const T* q_base = a.q + ((b * a.q_len + m0) * a.q_heads + h) * d;
  // Keys past the last row's causal limit are never needed.
  const int64_t key_end = a.causal ? std::min(a.start_pos + m0 + rows, a.kv_len) : a.kv_len;
  for (int64_t n0 = 0; n0 < key_end; n0 += kKeyBlock) {
    const int64_t block = std::min(kKeyBlock, key_end - n0);
    for (int64_t r = 0; r < rows; ++r) {
      // Keys this row sees in the block: query row i sees 0 .. start_pos + i.
      int64_t count = block;
      if (a.causal) count = std::min(count, a.start_pos + m0 + r + 1 - n0);
      if (count <= 0) continue;
      const T* qr = q_base + r * q_row;
      T block_max = neg_inf;
      a.dot_rows(qr, k_base + n0 * kv_row, kv_row, count, d, scores);
      for (int64_t j = 0; j < count; ++j) {
        T s = scores[j] * a.scale;
        if (a.mask != nullptr) s += a.mask[(m0 + r) * a.kv_len + n0 + j];
        scores[j] = s;
        block_max = s > block_max ? s : block_max;
      }
      const T new_max = row_max[r] > block_max ? row_max[r] : block_max;
      if (new_max == neg_inf) continue;  // everything so far masked out
      // Earlier terms were taken against the old maximum: scale them down.
      const T correction = std::exp(row_max[r] - new_max);
      const T block_sum = exp_shift_sum(scores, new_max, scores, count);
      row_sum[r] = row_sum[r] * correction + block_sum;
      row_max[r] = new_max;
      T* ar = acc + r * d;
      if (correction != 1) {
        for (int64_t x = 0; x < d; ++x) ar[x] *= correction;
      }
      a.axpy_rows(scores, v_base + n0 * kv_row, kv_row, count, ar, d);
    }
  }
  T* out_base = a.out + ((b * a.q_len + m0) * a.q_heads + h) * d;
  for (int64_t r = 0; r < rows; ++r) {
    const T* ar = acc + r * d;
    T* o = out_base + r * q_row;
    if (row_sum[r] == 0) {
      // The row saw no key with a finite score (see the top of this file).
      for (int64_t x = 0; x < d; ++x) o[x] = std::numeric_limits<T>::quiet_NaN();
    } else {
      const T inv = 1 / row_sum[r];
      for (int64_t x = 0; x < d; ++x) o[x] = ar[x] * inv;
    }
  }
}

// Every work item (batch, query head, query block), over the pool.
template <typename T>
void run_attention(KernelContext& ctx, const Attention<T>& a) {
  const int64_t q_blocks = (a.q_len + kQueryBlock - 1) / kQueryBlock;
  const int64_t items = a.batch * a.q_heads * q_blocks;
  if (items == 0 || a.head_dim == 0) return;
  ThreadPool* pool = ctx.thread_pool();
  size_t slots = pool == nullptr ? 1 : pool->num_threads();
  if (slots > static_cast<size_t>(items)) slots = static_cast<size_t>(items);
  // Rounded to 64 bytes so that slots do not share cache lines.
  const size_t slot_bytes =
      (static_cast<size_t>(slot_elements(a.head_dim)) * sizeof(T) + 63) / 64 * 64;
  void* scratch = nullptr;
  for (; slots >= 1; --slots) {
    scratch = ctx.allocate_temp(slot_bytes * slots, 64);
    if (scratch != nullptr) break;
  }
  if (scratch == nullptr) {
    ETR_LOG(Error, "%s: attention scratch of %zu bytes not available from temp memory",
            ctx.op_name(), slot_bytes);
    ctx.fail(Error::MemoryAllocationFailed);
    return;
  }
  const size_t total = static_cast<size_t>(items);
  parallel_for(pool, slots, 1, [&](size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      T* mine = reinterpret_cast<T*>(static_cast<uint8_t*>(scratch) + s * slot_bytes);
      for (size_t it = total * s / slots; it < total * (s + 1) / slots; ++it) {
        const int64_t item = static_cast<int64_t>(it);
        const int64_t qb = item % q_blocks;
        const int64_t h = (item / q_blocks) % a.q_heads;
        const int64_t b = item / (q_blocks * a.q_heads);
        const int64_t m0 = qb * kQueryBlock;
        attend(a, b, h, m0, std::min(kQueryBlock, a.q_len - m0), mine);
      }
    }
  });
}

// Load-time checks shared by both operators.
Error check_sdpa_args(const char* op, const Tensor& q, const Tensor& k, const Tensor& v,
                      const Tensor* mask, bool is_causal, const Tensor& out) {
  ETR_CHECK_OR_FAIL(q.dtype() == ScalarType::Float || q.dtype() == ScalarType::Double ||
                        q.dtype() == ScalarType::BFloat16 || q.dtype() == ScalarType::Half,
                    Error::NotSupported,
                    "%s: query has dtype %s; Float, Double, BFloat16 and Half are supported", op,
                    to_string(q.dtype()));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, "key", k, q.dtype()));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, "value", v, q.dtype()));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, "out", out, q.dtype()));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, "query", q, 4));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, "key", k, 4));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, "value", v, 4));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, "out", out, 4));
  ETR_RETURN_IF_ERROR(llm::check_contiguous(op, "query", q));
  ETR_RETURN_IF_ERROR(llm::check_contiguous(op, "key", k));
  ETR_RETURN_IF_ERROR(llm::check_contiguous(op, "value", v));
  ETR_RETURN_IF_ERROR(llm::check_contiguous(op, "out", out));
  if (mask != nullptr) {
    ETR_CHECK_OR_FAIL(!is_causal, Error::InvalidArgument,
                      "%s: attn_mask and is_causal cannot be set at the same time", op);
    ETR_RETURN_IF_ERROR(llm::check_dtype(op, "attn_mask", *mask, q.dtype()));
    ETR_RETURN_IF_ERROR(llm::check_rank(op, "attn_mask", *mask, 2));
    ETR_RETURN_IF_ERROR(llm::check_contiguous(op, "attn_mask", *mask));
  }
  return Error::Ok;
}

// Run-time checks of the sizes and start_pos; fills the sizes of `a`.
template <typename T>
Error check_sdpa_call(const char* op, const Tensor& q, const Tensor& k, const Tensor& v,
                      int64_t start_pos, const Tensor* mask, Attention<T>* a) {
  ETR_CHECK_OR_FAIL(same_shape(k, v), Error::InvalidArgument,
                    "%s: key cache %s and value cache %s differ", op, llm::ShapeText(k).c_str(),
                    llm::ShapeText(v).c_str());
  ETR_CHECK_OR_FAIL(q.size(0) == k.size(0) && q.size(3) == k.size(3), Error::InvalidArgument,
                    "%s: query %s and key cache %s differ in batch or head_dim (dims 0, 3)", op,
                    llm::ShapeText(q).c_str(), llm::ShapeText(k).c_str());
  ETR_CHECK_OR_FAIL(k.size(2) > 0 && q.size(2) % k.size(2) == 0, Error::InvalidArgument,
                    "%s: query heads %lld are not a multiple of key/value heads %lld (query %s, "
                    "key cache %s)",
                    op, static_cast<long long>(q.size(2)), static_cast<long long>(k.size(2)),
                    llm::ShapeText(q).c_str(), llm::ShapeText(k).c_str());
  const int64_t q_len = q.size(1);
  const bool has_mask = mask != nullptr && mask->numel() > 0;
  // With a mask start_pos plays no part (the mask covers the whole cache).
  ETR_CHECK_OR_FAIL(has_mask || (start_pos >= 0 && start_pos <= k.size(1) - q_len),
                    Error::InvalidArgument,
                    "%s: start_pos %lld + query length %lld exceeds key cache %s (max_seq %lld)",
                    op, static_cast<long long>(start_pos), static_cast<long long>(q_len),
                    llm::ShapeText(k).c_str(), static_cast<long long>(k.size(1)));
  a->batch = q.size(0);
  a->q_len = q_len;
  a->q_heads = q.size(2);
  a->kv_heads = k.size(2);
  a->head_dim = q.size(3);
  a->max_seq = k.size(1);
  a->start_pos = start_pos;
  a->kv_len = start_pos + q_len;
  if (has_mask) {
    // With a mask every cache position takes part, as in ExecuTorch's kernel:
    // the mask says which (ring-buffer caches of attention-sink and sliding
    // window exports keep valid rows anywhere in the cache).
    a->kv_len = a->max_seq;
    ETR_CHECK_OR_FAIL(mask->size(0) == q_len && mask->size(1) == a->max_seq, Error::InvalidArgument,
                      "%s: attn_mask %s must be [query length %lld, key cache length %lld]", op,
                      llm::ShapeText(*mask).c_str(), static_cast<long long>(q_len),
                      static_cast<long long>(a->max_seq));
  }
  return Error::Ok;
}

// sdpa_with_kv_cache's new keys and values and the caches they go into.
struct CacheUpdate {
  const Tensor* key;
  Tensor* key_cache;
  const Tensor* value;
  Tensor* value_cache;
};

// Checks the call, resizes out to query's shape and computes. With `update`
// (sdpa_with_kv_cache; its caches are k and v), the new keys and values are
// copied into the caches after every check passed and before the attention.
template <typename T>
void sdpa(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, int64_t start_pos,
          const Tensor* mask, bool is_causal, std::optional<double> scale, Tensor& out,
          const CacheUpdate* update) {
  const char* op = ctx.op_name();
  Attention<T> a;
  ETR_KERNEL_TRY(ctx, check_sdpa_call(op, q, k, v, start_pos, mask, &a));
  ETR_KERNEL_TRY(ctx, resize_tensor(out, q.sizes()));
  if (update != nullptr) {
    llm::copy_into_cache(*update->key, *update->key_cache, start_pos);
    llm::copy_into_cache(*update->value, *update->value_cache, start_pos);
  }
  a.q = q.const_data_ptr<T>();
  a.k = k.const_data_ptr<T>();
  a.v = v.const_data_ptr<T>();
  a.mask = mask != nullptr && mask->numel() > 0 ? mask->const_data_ptr<T>() : nullptr;
  a.out = out.data_ptr<T>();
  a.causal = is_causal;
  const double s = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(a.head_dim));
  a.scale = static_cast<T>(s);
  pick_inner_loops(&a);
  run_attention(ctx, a);
}

// Widens n 16-bit values (Half or BFloat16 storage) to float.
template <typename H>
void widen(const void* src, float* dst, int64_t n) {
  const H* in = static_cast<const H*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(in[i]);
}

template <typename H>
void narrow(const float* src, void* dst, int64_t n) {
  H* out = static_cast<H*>(dst);
  for (int64_t i = 0; i < n; ++i) out[i] = H(src[i]);
}

// BFloat16 and Half (H): the same attention computed in float. The query,
// the cache rows the attention reads (the first kv_len of each batch) and
// the mask are widened into temp memory, and the float result is rounded
// into out once, as ExecuTorch's kernel accumulates in float too.
template <typename H>
void sdpa_16bit(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                int64_t start_pos, const Tensor* mask, bool is_causal, std::optional<double> scale,
                Tensor& out, const CacheUpdate* update) {
  const char* op = ctx.op_name();
  Attention<float> a;
  ETR_KERNEL_TRY(ctx, check_sdpa_call(op, q, k, v, start_pos, mask, &a));
  ETR_KERNEL_TRY(ctx, resize_tensor(out, q.sizes()));
  if (update != nullptr) {
    llm::copy_into_cache(*update->key, *update->key_cache, start_pos);
    llm::copy_into_cache(*update->value, *update->value_cache, start_pos);
  }
  const int64_t rows = a.kv_len;
  const int64_t row_elems = a.kv_heads * a.head_dim;
  const int64_t q_elems = q.numel();
  const int64_t cache_elems = a.batch * rows * row_elems;
  const int64_t mask_elems = mask != nullptr ? mask->numel() : 0;
  // All sizes come from tensors that exist, so they fit; the sum is bounded likewise.
  float* qf =
      static_cast<float*>(ctx.allocate_temp(static_cast<size_t>(q_elems) * sizeof(float), 64));
  float* kf =
      static_cast<float*>(ctx.allocate_temp(static_cast<size_t>(cache_elems) * sizeof(float), 64));
  float* vf =
      static_cast<float*>(ctx.allocate_temp(static_cast<size_t>(cache_elems) * sizeof(float), 64));
  float* of =
      static_cast<float*>(ctx.allocate_temp(static_cast<size_t>(q_elems) * sizeof(float), 64));
  float* mf = mask_elems > 0 ? static_cast<float*>(ctx.allocate_temp(
                                   static_cast<size_t>(mask_elems) * sizeof(float), 64))
                             : nullptr;
  if (qf == nullptr || kf == nullptr || vf == nullptr || of == nullptr ||
      (mask_elems > 0 && mf == nullptr)) {
    ETR_LOG(Error, "%s: %s attention needs %lld float values of temp memory, not available", op,
            to_string(q.dtype()),
            static_cast<long long>(2 * q_elems + 2 * cache_elems + mask_elems));
    ctx.fail(Error::MemoryAllocationFailed);
    return;
  }
  widen<H>(q.const_data(), qf, q_elems);
  const size_t esize = sizeof(H);
  for (int64_t b = 0; b < a.batch; ++b) {
    const size_t from = static_cast<size_t>(b * a.max_seq * row_elems) * esize;
    widen<H>(static_cast<const uint8_t*>(k.const_data()) + from, kf + b * rows * row_elems,
             rows * row_elems);
    widen<H>(static_cast<const uint8_t*>(v.const_data()) + from, vf + b * rows * row_elems,
             rows * row_elems);
  }
  if (mf != nullptr) widen<H>(mask->const_data(), mf, mask_elems);
  a.max_seq = rows;  // the widened caches hold only the rows read
  a.q = qf;
  a.k = kf;
  a.v = vf;
  a.mask = mf;
  a.out = of;
  a.causal = is_causal;
  const double s = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(a.head_dim));
  a.scale = static_cast<float>(s);
  pick_inner_loops(&a);
  run_attention(ctx, a);
  narrow<H>(of, out.mutable_data(), q_elems);
}

// Runs the attention in the query's dtype (checked at load).
void sdpa_any(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
              int64_t start_pos, const Tensor* mask, bool is_causal, std::optional<double> scale,
              Tensor& out, const CacheUpdate* update) {
  switch (q.dtype()) {
    case ScalarType::Double:
      sdpa<double>(ctx, q, k, v, start_pos, mask, is_causal, scale, out, update);
      return;
    case ScalarType::BFloat16:
      sdpa_16bit<BFloat16>(ctx, q, k, v, start_pos, mask, is_causal, scale, out, update);
      return;
    case ScalarType::Half:
      sdpa_16bit<Half>(ctx, q, k, v, start_pos, mask, is_causal, scale, out, update);
      return;
    default: sdpa<float>(ctx, q, k, v, start_pos, mask, is_causal, scale, out, update); return;
  }
}

}  // namespace

Error custom_sdpa_prepare(KernelPrepareContext& ctx, const Tensor& query, const Tensor& key,
                          const Tensor& value, int64_t, const Tensor* attn_mask, double,
                          bool is_causal, std::optional<double>, Tensor& out) {
  return check_sdpa_args(ctx.op_name(), query, key, value, attn_mask, is_causal, out);
}

void custom_sdpa_out(KernelContext& ctx, const Tensor& query, const Tensor& key,
                     const Tensor& value, int64_t start_pos, const Tensor* attn_mask, double,
                     bool is_causal, std::optional<double> scale, Tensor& out) {
  sdpa_any(ctx, query, key, value, start_pos, attn_mask, is_causal, scale, out, nullptr);
}

Error sdpa_with_kv_cache_prepare(KernelPrepareContext& ctx, const Tensor& query, const Tensor& key,
                                 const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                                 int64_t, int64_t, const Tensor* attn_mask, double, bool is_causal,
                                 std::optional<double>, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(
      check_sdpa_args(op, query, key_cache, value_cache, attn_mask, is_causal, out));
  ETR_RETURN_IF_ERROR(llm::check_cache_update_args(op, "key", key, "key_cache", key_cache));
  return llm::check_cache_update_args(op, "value", value, "value_cache", value_cache);
}

void sdpa_with_kv_cache_out(KernelContext& ctx, const Tensor& query, const Tensor& key,
                            const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                            int64_t start_pos, int64_t seq_len, const Tensor* attn_mask, double,
                            bool is_causal, std::optional<double> scale, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, llm::check_cache_window(op, "key", key, "key_cache", key_cache, start_pos));
  ETR_KERNEL_TRY(
      ctx, llm::check_cache_window(op, "value", value, "value_cache", value_cache, start_pos));
  ETR_KERNEL_CHECK(ctx, seq_len >= 0 && start_pos <= key_cache.size(1) - seq_len,
                   Error::InvalidArgument, "%s: start_pos %lld + seq_len %lld exceeds key_cache %s",
                   op, static_cast<long long>(start_pos), static_cast<long long>(seq_len),
                   llm::ShapeText(key_cache).c_str());
  ETR_KERNEL_CHECK(ctx, key.size(1) == query.size(1), Error::InvalidArgument,
                   "%s: key %s and query %s differ in length (dim 1)", op,
                   llm::ShapeText(key).c_str(), llm::ShapeText(query).c_str());
  const CacheUpdate update{&key, &key_cache, &value, &value_cache};
  sdpa_any(ctx, query, key_cache, value_cache, start_pos, attn_mask, is_causal, scale, out,
           &update);
}

}  // namespace etr
