// custom_quantized_sdpa.out: softmax(q k^T * scale [+ mask]) v where q, k
// and v are int8 with one zero point and scale per row (per batch, position
// and head), the attention of the exporter's quantized KV cache.
//
// The walk is the one of op_sdpa.cpp: a work item is a batch, a query head
// and a block of up to kQueryBlock query rows; it goes over the keys in
// blocks of kKeyBlock with an online softmax (running maximum, running sum,
// running weighted sum of value rows, rescaled when the maximum grows), and
// items are split over the kernel's thread pool, one scratch slot each.
//
// The quantized parts: each query row is centred once (q - zq, int16) and a
// score is the exact integer sum (q - zq) . (k - zk) = (q - zq) . k -
// zk * sum(q - zq), times sq * sk * scale. A value row enters the float
// accumulator as p * sv * (v - zv), the subtraction done in integers. The
// reference (ExecuTorch's test) dequantizes q, k and v to float and runs
// float attention; the two agree up to float rounding.
//
// A row whose every score is -inf (masked out entirely) comes out NaN, as in
// op_sdpa.cpp.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/vec_math.h"
#include "kernels/llm/llm.h"
#include "kernels/llm/util/llm_util.h"
#include "kernels/llm/util/quantized_attention_math.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace {

constexpr int64_t kQueryBlock = 16;
constexpr int64_t kKeyBlock = 128;
// |q - zq| <= 255 and |k| <= 128: with head_dim up to this the integer dot
// products (and zk * sum(q - zq)) stay far inside int32.
constexpr int64_t kMaxHeadDim = 16384;

// Element offsets of row (batch, head, position) in a contiguous rank-4
// tensor whose rows hold `row` elements: [B, S, H, row] or, with the
// sequence at dim 2, [B, H, S, row].
struct RowStrides {
  int64_t batch = 0, head = 0, pos = 0;
  int64_t at(int64_t b, int64_t h, int64_t p) const { return b * batch + h * head + p * pos; }
};

RowStrides row_strides(const Tensor& t, bool seq_at_dim_2) {
  const int64_t row = t.size(3);
  RowStrides s;
  s.batch = t.size(1) * t.size(2) * row;
  if (seq_at_dim_2) {
    s.head = t.size(2) * row;
    s.pos = row;
  } else {
    s.head = row;
    s.pos = t.size(2) * row;
  }
  return s;
}

// One int8 tensor with its per-row zero points and scales.
struct QuantizedRows {
  const int8_t* data = nullptr;
  const int8_t* zero_points = nullptr;
  const float* scales = nullptr;
  RowStrides rows;    // of data
  RowStrides params;  // of zero_points and scales (the same shape)
};

// Everything one call needs, checked before anything is computed.
struct QuantizedAttention {
  QuantizedRows q, k, v;
  const float* mask = nullptr;  // [q_len, kv_len] or null
  float* out = nullptr;         // query's shape and layout
  int64_t batch = 0, q_len = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  int64_t start_pos = 0, kv_len = 0;
  bool causal = false;
  float scale = 0;
  int32_t (*dot)(const int16_t*, const int8_t*, int64_t) = nullptr;
  void (*axpy)(float, const int8_t*, int32_t, float*, int64_t) = nullptr;
};

// Scratch of one slot: the float arrays, then the int32 row sums, then the
// centred int16 query rows, each rounded to 64 bytes.
struct SlotLayout {
  size_t floats = 0, sums = 0, centred = 0, total = 0;
};

size_t round64(size_t n) { return (n + 63) / 64 * 64; }

SlotLayout slot_layout(int64_t head_dim) {
  const size_t d = static_cast<size_t>(head_dim);
  SlotLayout l;
  // scores, row maximum, row sum, row scale (sq * scale), accumulators
  l.floats = round64((kKeyBlock + 3 * kQueryBlock + kQueryBlock * d) * sizeof(float));
  l.sums = round64(kQueryBlock * sizeof(int32_t));
  l.centred = round64(kQueryBlock * d * sizeof(int16_t));
  l.total = l.floats + l.sums + l.centred;
  return l;
}

// Query rows m0 .. m0 + rows - 1 of batch b and query head h.
void attend(const QuantizedAttention& a, const SlotLayout& layout, int64_t b, int64_t h, int64_t m0,
            int64_t rows, uint8_t* slot) {
  const int64_t d = a.head_dim;
  float* scores = reinterpret_cast<float*>(slot);
  float* row_max = scores + kKeyBlock;
  float* row_sum = row_max + kQueryBlock;
  float* row_scale = row_sum + kQueryBlock;
  float* acc = row_scale + kQueryBlock;
  int32_t* centred_sum = reinterpret_cast<int32_t*>(slot + layout.floats);
  int16_t* centred = reinterpret_cast<int16_t*>(slot + layout.floats + layout.sums);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t pos = m0 + r;
    const int8_t* qr = a.q.data + a.q.rows.at(b, h, pos);
    const int64_t p = a.q.params.at(b, h, pos);
    const int32_t zq = a.q.zero_points[p];
    int16_t* cr = centred + r * d;
    int32_t sum = 0;
    for (int64_t x = 0; x < d; ++x) {
      cr[x] = static_cast<int16_t>(static_cast<int32_t>(qr[x]) - zq);
      sum += cr[x];
    }
    centred_sum[r] = sum;
    row_scale[r] = a.q.scales[p] * a.scale;
    row_max[r] = neg_inf;
    row_sum[r] = 0;
  }
  std::memset(acc, 0, static_cast<size_t>(rows * d) * sizeof(float));
  const int64_t kv_head = h / (a.q_heads / a.kv_heads);
  // Keys past the last row's causal limit are never needed.
  const int64_t key_end = a.causal ? std::min(a.start_pos + m0 + rows, a.kv_len) : a.kv_len;
  for (int64_t n0 = 0; n0 < key_end; n0 += kKeyBlock) {
    const int64_t block = std::min(kKeyBlock, key_end - n0);
    for (int64_t r = 0; r < rows; ++r) {
      // Keys this row sees in the block: query row i sees 0 .. start_pos + i.
      int64_t count = block;
      if (a.causal) count = std::min(count, a.start_pos + m0 + r + 1 - n0);
      if (count <= 0) continue;
      const int16_t* cr = centred + r * d;
      float block_max = neg_inf;
      for (int64_t j = 0; j < count; ++j) {
        const int64_t n = n0 + j;
        const int64_t kp = a.k.params.at(b, kv_head, n);
        const int32_t dot = a.dot(cr, a.k.data + a.k.rows.at(b, kv_head, n), d) -
                            static_cast<int32_t>(a.k.zero_points[kp]) * centred_sum[r];
        float s = static_cast<float>(dot) * (row_scale[r] * a.k.scales[kp]);
        if (a.mask != nullptr) s += a.mask[(m0 + r) * a.kv_len + n];
        scores[j] = s;
        block_max = s > block_max ? s : block_max;
      }
      const float new_max = row_max[r] > block_max ? row_max[r] : block_max;
      if (new_max == neg_inf) continue;  // everything so far masked out
      // Earlier terms were taken against the old maximum: scale them down.
      const float correction = std::exp(row_max[r] - new_max);
      const float block_sum =
          opt::exp_shift_sum(scores, new_max, scores, static_cast<size_t>(count));
      row_sum[r] = row_sum[r] * correction + block_sum;
      row_max[r] = new_max;
      float* ar = acc + r * d;
      if (correction != 1) {
        for (int64_t x = 0; x < d; ++x) ar[x] *= correction;
      }
      for (int64_t j = 0; j < count; ++j) {
        const int64_t n = n0 + j;
        const int64_t vp = a.v.params.at(b, kv_head, n);
        a.axpy(scores[j] * a.v.scales[vp], a.v.data + a.v.rows.at(b, kv_head, n),
               static_cast<int32_t>(a.v.zero_points[vp]), ar, d);
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = acc + r * d;
    float* o = a.out + a.q.rows.at(b, h, m0 + r);
    if (row_sum[r] == 0) {
      // The row saw no key with a finite score (see the top of this file).
      for (int64_t x = 0; x < d; ++x) o[x] = std::numeric_limits<float>::quiet_NaN();
    } else {
      const float inv = 1 / row_sum[r];
      for (int64_t x = 0; x < d; ++x) o[x] = ar[x] * inv;
    }
  }
}

// Every work item (batch, query head, query block), over the pool.
void run_attention(KernelContext& ctx, const QuantizedAttention& a) {
  const int64_t q_blocks = (a.q_len + kQueryBlock - 1) / kQueryBlock;
  const int64_t items = a.batch * a.q_heads * q_blocks;
  if (items == 0 || a.head_dim == 0) return;
  const SlotLayout layout = slot_layout(a.head_dim);
  ThreadPool* pool = ctx.thread_pool();
  size_t slots = pool == nullptr ? 1 : pool->num_threads();
  if (slots > static_cast<size_t>(items)) slots = static_cast<size_t>(items);
  void* scratch = nullptr;
  for (; slots >= 1; --slots) {
    scratch = ctx.allocate_temp(layout.total * slots, 64);
    if (scratch != nullptr) break;
  }
  if (scratch == nullptr) {
    ETR_LOG(Error, "%s: attention scratch of %zu bytes not available from temp memory",
            ctx.op_name(), layout.total);
    ctx.fail(Error::MemoryAllocationFailed);
    return;
  }
  const size_t total = static_cast<size_t>(items);
  parallel_for(pool, slots, 1, [&](size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      uint8_t* mine = static_cast<uint8_t*>(scratch) + s * layout.total;
      for (size_t it = total * s / slots; it < total * (s + 1) / slots; ++it) {
        const int64_t item = static_cast<int64_t>(it);
        const int64_t qb = item % q_blocks;
        const int64_t h = (item / q_blocks) % a.q_heads;
        const int64_t b = item / (q_blocks * a.q_heads);
        const int64_t m0 = qb * kQueryBlock;
        attend(a, layout, b, h, m0, std::min(kQueryBlock, a.q_len - m0), mine);
      }
    }
  });
}

// The names of one quantized operand and its parameters, for messages.
struct QuantizedNames {
  const char* data;
  const char* zero_points;
  const char* scales;
};

constexpr QuantizedNames kQueryNames{"query", "q_zero_points", "q_scales"};
constexpr QuantizedNames kKeyNames{"key", "k_zero_points", "k_scales"};
constexpr QuantizedNames kValueNames{"value", "v_zero_points", "v_scales"};

// Load-time checks of one quantized operand: int8 data, its zero points
// (Char) and scales (Float) present, all rank 4 and laid out in the default
// order (llm::check_dense; again at run, where sizes may have changed).
Error check_quantized_args(const char* op, const QuantizedNames& n, const Tensor& t,
                           const Tensor* zero_points, const Tensor* scales) {
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, n.data, t, ScalarType::Char));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, n.data, t, 4));
  ETR_RETURN_IF_ERROR(llm::check_dense(op, n.data, t));
  ETR_CHECK_OR_FAIL(zero_points != nullptr, Error::InvalidArgument,
                    "%s: %s is required (None given)", op, n.zero_points);
  ETR_CHECK_OR_FAIL(scales != nullptr, Error::InvalidArgument, "%s: %s is required (None given)",
                    op, n.scales);
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, n.zero_points, *zero_points, ScalarType::Char));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, n.scales, *scales, ScalarType::Float));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, n.zero_points, *zero_points, 4));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, n.scales, *scales, 4));
  ETR_RETURN_IF_ERROR(llm::check_dense(op, n.zero_points, *zero_points));
  return llm::check_dense(op, n.scales, *scales);
}

// Run-time checks of one quantized operand's parameter shapes; fills `q`.
Error bind_quantized(const char* op, const QuantizedNames& n, const Tensor& t,
                     const Tensor& zero_points, const Tensor& scales, bool seq_at_dim_2,
                     QuantizedRows* q) {
  ETR_RETURN_IF_ERROR(llm::check_dense(op, n.data, t));
  ETR_RETURN_IF_ERROR(llm::check_dense(op, n.zero_points, zero_points));
  ETR_RETURN_IF_ERROR(llm::check_dense(op, n.scales, scales));
  ETR_CHECK_OR_FAIL(same_shape(zero_points, scales), Error::InvalidArgument,
                    "%s: %s %s and %s %s differ", op, n.zero_points,
                    llm::ShapeText(zero_points).c_str(), n.scales, llm::ShapeText(scales).c_str());
  ETR_CHECK_OR_FAIL(scales.size(0) == t.size(0) && scales.size(1) == t.size(1) &&
                        scales.size(2) == t.size(2) && scales.size(3) >= 1,
                    Error::InvalidArgument,
                    "%s: %s %s must match %s %s in dims 0-2 and have a last dim >= 1", op, n.scales,
                    llm::ShapeText(scales).c_str(), n.data, llm::ShapeText(t).c_str());
  q->data = t.const_data_ptr<int8_t>();
  q->zero_points = zero_points.const_data_ptr<int8_t>();
  q->scales = scales.const_data_ptr<float>();
  q->rows = row_strides(t, seq_at_dim_2);
  q->params = row_strides(scales, seq_at_dim_2);
  return Error::Ok;
}

// Run-time checks of the sizes, start_pos and mask; fills `a` (but out).
Error check_call(const char* op, const Tensor& q, const Tensor& k, const Tensor& v,
                 int64_t start_pos, const Tensor* mask, bool seq_at_dim_2,
                 const Tensor* const params[6], QuantizedAttention* a) {
  const int seq_dim = seq_at_dim_2 ? 2 : 1;
  const int head_dim_index = seq_at_dim_2 ? 1 : 2;
  ETR_CHECK_OR_FAIL(same_shape(k, v), Error::InvalidArgument, "%s: key %s and value %s differ", op,
                    llm::ShapeText(k).c_str(), llm::ShapeText(v).c_str());
  ETR_CHECK_OR_FAIL(q.size(0) == k.size(0) && q.size(3) == k.size(3), Error::InvalidArgument,
                    "%s: query %s and key %s differ in batch or head_dim (dims 0, 3)", op,
                    llm::ShapeText(q).c_str(), llm::ShapeText(k).c_str());
  const int64_t q_heads = q.size(head_dim_index);
  const int64_t kv_heads = k.size(head_dim_index);
  ETR_CHECK_OR_FAIL(kv_heads > 0 && q_heads % kv_heads == 0, Error::InvalidArgument,
                    "%s: query heads %lld are not a multiple of key/value heads %lld (query %s, "
                    "key %s, heads at dim %d)",
                    op, static_cast<long long>(q_heads), static_cast<long long>(kv_heads),
                    llm::ShapeText(q).c_str(), llm::ShapeText(k).c_str(), head_dim_index);
  ETR_CHECK_OR_FAIL(q.size(3) <= kMaxHeadDim, Error::NotSupported,
                    "%s: head_dim %lld is above the supported %lld", op,
                    static_cast<long long>(q.size(3)), static_cast<long long>(kMaxHeadDim));
  ETR_RETURN_IF_ERROR(
      bind_quantized(op, kQueryNames, q, *params[0], *params[1], seq_at_dim_2, &a->q));
  ETR_RETURN_IF_ERROR(
      bind_quantized(op, kKeyNames, k, *params[2], *params[3], seq_at_dim_2, &a->k));
  ETR_RETURN_IF_ERROR(
      bind_quantized(op, kValueNames, v, *params[4], *params[5], seq_at_dim_2, &a->v));
  const int64_t q_len = q.size(seq_dim);
  const int64_t max_seq = k.size(seq_dim);
  if (mask == nullptr) {
    ETR_CHECK_OR_FAIL(start_pos >= 0 && start_pos <= max_seq - q_len, Error::InvalidArgument,
                      "%s: start_pos %lld + query length %lld exceeds key %s (max_seq %lld at "
                      "dim %d)",
                      op, static_cast<long long>(start_pos), static_cast<long long>(q_len),
                      llm::ShapeText(k).c_str(), static_cast<long long>(max_seq), seq_dim);
    a->kv_len = start_pos + q_len;
  } else {
    // With a mask every cache position takes part (ExecuTorch's kernel).
    a->kv_len = max_seq;
    ETR_RETURN_IF_ERROR(llm::check_dense(op, "attn_mask", *mask));
    if (mask->numel() > 0) {
      ETR_CHECK_OR_FAIL(mask->size(0) == q_len && mask->size(1) == max_seq, Error::InvalidArgument,
                        "%s: attn_mask %s must be [query length %lld, max_seq %lld]", op,
                        llm::ShapeText(*mask).c_str(), static_cast<long long>(q_len),
                        static_cast<long long>(max_seq));
    }
  }
  a->batch = q.size(0);
  a->q_len = q_len;
  a->q_heads = q_heads;
  a->kv_heads = kv_heads;
  a->head_dim = q.size(3);
  a->start_pos = start_pos;
  return Error::Ok;
}

}  // namespace

Error custom_quantized_sdpa_prepare(KernelPrepareContext& ctx, const Tensor& query,
                                    const Tensor& key, const Tensor& value, int64_t,
                                    const Tensor* attn_mask, double, bool is_causal,
                                    std::optional<double>, const Tensor* q_zero_points,
                                    const Tensor* q_scales, const Tensor* k_zero_points,
                                    const Tensor* k_scales, const Tensor* v_zero_points,
                                    const Tensor* v_scales, bool, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_quantized_args(op, kQueryNames, query, q_zero_points, q_scales));
  ETR_RETURN_IF_ERROR(check_quantized_args(op, kKeyNames, key, k_zero_points, k_scales));
  ETR_RETURN_IF_ERROR(check_quantized_args(op, kValueNames, value, v_zero_points, v_scales));
  ETR_RETURN_IF_ERROR(llm::check_dtype(op, "out", out, ScalarType::Float));
  ETR_RETURN_IF_ERROR(llm::check_rank(op, "out", out, 4));
  ETR_RETURN_IF_ERROR(llm::check_dense(op, "out", out));
  if (attn_mask != nullptr) {
    ETR_CHECK_OR_FAIL(!is_causal, Error::InvalidArgument,
                      "%s: attn_mask and is_causal cannot be set at the same time", op);
    ETR_RETURN_IF_ERROR(llm::check_dtype(op, "attn_mask", *attn_mask, ScalarType::Float));
    ETR_RETURN_IF_ERROR(llm::check_rank(op, "attn_mask", *attn_mask, 2));
    ETR_RETURN_IF_ERROR(llm::check_dense(op, "attn_mask", *attn_mask));
  }
  return Error::Ok;
}

void custom_quantized_sdpa_out(KernelContext& ctx, const Tensor& query, const Tensor& key,
                               const Tensor& value, int64_t start_pos, const Tensor* attn_mask,
                               double, bool is_causal, std::optional<double> scale,
                               const Tensor* q_zero_points, const Tensor* q_scales,
                               const Tensor* k_zero_points, const Tensor* k_scales,
                               const Tensor* v_zero_points, const Tensor* v_scales,
                               bool is_seq_at_dim_2, Tensor& out) {
  const char* op = ctx.op_name();
  const Tensor* const params[6] = {q_zero_points, q_scales,      k_zero_points,
                                   k_scales,      v_zero_points, v_scales};
  QuantizedAttention a;
  ETR_KERNEL_TRY(
      ctx, check_call(op, query, key, value, start_pos, attn_mask, is_seq_at_dim_2, params, &a));
  ETR_KERNEL_TRY(ctx, resize_tensor(out, query.sizes()));
  ETR_KERNEL_TRY(ctx, llm::check_dense(op, "out", out));
  a.mask =
      attn_mask != nullptr && attn_mask->numel() > 0 ? attn_mask->const_data_ptr<float>() : nullptr;
  a.out = out.data_ptr<float>();
  a.causal = is_causal;
  const double s = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(a.head_dim));
  a.scale = static_cast<float>(s);
  const bool avx2 = opt::cpu_features().avx2_fma;
  a.dot = avx2 ? &llm::avx2::dot_i16_i8 : &llm::generic::dot_i16_i8;
  a.axpy = avx2 ? &llm::avx2::axpy_i8 : &llm::generic::axpy_i8;
  run_attention(ctx, a);
}

}  // namespace etr
