// etr::attention.fused: nn.MultiheadAttention's self-attention core
// (fusion_rules.cpp, 30 calls) as one kernel. From the packed projection
// x [L, B, 3, E] (q, k, v side by side in each row) it writes
//
//   out[l, b, h, :] = softmax_j(sq * sk * q[l, b, h, :] . k[j, b, h, :]) @ v[:, b, h, :]
//
// with rows whose scores are -inf throughout written as zeros (the
// exporter's safe softmax), E = H * D. The calls it stands in for copy q,
// k and v into heads, scale q and k, transpose k, and merge the heads back:
// here the products read the heads in place from x and write into out.
//
// etr::attention_mask.fused: a decoder's causal self-attention (16 calls):
// q, k, v [B, L, H, D] to
//
//   out[b, l, h, :] = softmax_j(s * q[b, l, h, :] . k[b, j, h, :] + mask[l, j]) @ v[b, :, h, :]
//
// with a plain softmax (a row that is -inf throughout gives NaN, as the
// calls do), s a one-value tensor and mask [L, L].
//
// Work, both: each head's k^T and v packed once (one pass over them), then
// units of (head, block of query rows): the block's scores [rows, L] in a
// per-thread slot, their softmax, and the product with v straight into out.
// Both phases run on the thread pool.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/scratch_slots.h"
#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/linear_algebra.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

// Query rows per unit: 16 units for a 128-token, 4-head layer, so 2
// threads share them evenly; the block's scores stay in L1/L2.
constexpr int64_t kRowBlock = 32;

struct AttentionState {
  int64_t l = 0, b = 0, h = 0, d = 0;
  float alpha = 1.0f;  // the scores' scale (one product per score)
  bool safe = false;   // rows that are -inf throughout come out as zeros
};

// Where head (b, h) of a [.., L, .., D] operand lives: token l's D values at
// data + b * batch + l * row + h * D.
struct Operand {
  const float* data = nullptr;
  ptrdiff_t batch = 0, row = 0;
  const float* at(int64_t b, int64_t l, int64_t h, int64_t d) const {
    return data + b * batch + l * row + h * d;
  }
};

struct Heads {
  Operand q, k, v;
  float* out = nullptr;
  ptrdiff_t out_batch = 0, out_row = 0;
  const float* mask = nullptr;  // [L, L] added to the scaled scores, or null
};

bool has_sizes(const Tensor& t, std::initializer_list<int64_t> sizes) {
  if (t.dtype() != ScalarType::Float || !opt::has_default_dim_order(t) || t.dim() != sizes.size()) {
    return false;
  }
  size_t i = 0;
  for (int64_t s : sizes) {
    if (t.size(i++) != s) return false;
  }
  return true;
}

bool int_list_is(IntArrayRef a, std::initializer_list<int64_t> want) {
  if (a.size() != want.size()) return false;
  size_t i = 0;
  for (int64_t w : want) {
    if (a[i++] != w) return false;
  }
  return true;
}

bool finite_scale(Scalar s) {
  if (s.is_bool()) return false;
  const double v = s.to_double();
  return std::isfinite(v);
}

// The views and expands both groups have between their two products, by
// the sizes the attention reading implies (the expands keep their input's
// shape).
bool product_views_ok(const Tensor& q3, const Tensor& kt3, const Tensor& s4, const Tensor& p3,
                      const Tensor& v3, const Tensor& o4, IntArrayRef expand_q,
                      IntArrayRef expand_k, IntArrayRef expand_p, IntArrayRef expand_v, int64_t b,
                      int64_t h, int64_t l, int64_t d) {
  const int64_t bh = b * h;
  return has_sizes(q3, {bh, l, d}) && has_sizes(kt3, {bh, d, l}) && has_sizes(s4, {b, h, l, l}) &&
         has_sizes(p3, {bh, l, l}) && has_sizes(v3, {bh, l, d}) && has_sizes(o4, {b, h, l, d}) &&
         int_list_is(expand_q, {b, h, l, d}) && int_list_is(expand_k, {b, h, d, l}) &&
         int_list_is(expand_p, {b, h, l, l}) && int_list_is(expand_v, {b, h, l, d});
}

Error set_prepared(KernelPrepareContext& ctx, int64_t b, int64_t h, int64_t l, int64_t d,
                   float alpha, bool safe) {
  auto* st = ctx.make_state<AttentionState>();
  ETR_CHECK_OR_FAIL(st != nullptr, Error::MemoryAllocationFailed,
                    "%s: out of method memory for its state", ctx.op_name());
  st->l = l;
  st->b = b;
  st->h = h;
  st->d = d;
  st->alpha = alpha;
  st->safe = safe;
  ctx.set_state(st);
  return Error::Ok;
}

// Per-thread slot: the block's scores, then the GEMMs' packing scratch.
struct Slot {
  size_t score_floats = 0, gemm_bytes = 0, bytes = 0;
};

Slot slot_sizes(const AttentionState& st, const Heads& hd, const opt::PackedMatrix* kt,
                const opt::PackedMatrix* v) {
  Slot s;
  s.score_floats = (static_cast<size_t>(kRowBlock * st.l) + 15) & ~size_t{15};
  opt::GemmArgs g1;
  g1.m = kRowBlock;
  g1.n = st.l;
  g1.k = st.d;
  g1.a = opt::MatrixView{nullptr, hd.q.row, 1};
  g1.packed_b = kt;
  g1.ldc = st.l;
  opt::GemmArgs g2;
  g2.m = kRowBlock;
  g2.n = st.d;
  g2.k = st.l;
  g2.a = opt::MatrixView{nullptr, st.l, 1};
  g2.packed_b = v;
  g2.ldc = hd.out_row;
  s.gemm_bytes = (std::max(opt::gemm_scratch_bytes(g1, 1), opt::gemm_scratch_bytes(g2, 1)) + 127) &
                 ~size_t{63};
  s.bytes = s.score_floats * sizeof(float) + s.gemm_bytes;
  return s;
}

// Scores of query rows [l0, l0 + rows) of head (b, h) (scaled, plus the
// mask), their softmax, and the product with v into the output.
Error run_unit(const AttentionState& st, const Heads& hd, const opt::PackedMatrix& kt,
               const opt::PackedMatrix& v, int64_t b, int64_t h, int64_t l0, int64_t rows,
               float* scores, void* gemm_mem, size_t gemm_bytes) {
  opt::GemmArgs g1;
  g1.m = rows;
  g1.n = st.l;
  g1.k = st.d;
  g1.a = opt::MatrixView{hd.q.at(b, l0, h, st.d), hd.q.row, 1};
  g1.packed_b = &kt;
  g1.c = scores;
  g1.ldc = st.l;
  g1.epilogue.alpha = st.alpha;
  MemoryAllocator scratch1(gemm_mem, gemm_bytes);
  ETR_RETURN_IF_ERROR(opt::gemm(g1, &scratch1, nullptr));
  const size_t n = static_cast<size_t>(st.l);
  opt::BinaryParams add;
  add.kind = opt::BinaryKind::kAdd;
  for (int64_t r = 0; r < rows; ++r) {
    float* sr = scores + r * st.l;
    if (hd.mask != nullptr) opt::binary(add, sr, 1, hd.mask + (l0 + r) * st.l, 1, sr, n);
    const float m = opt::max(sr, n);
    if (st.safe && m == -std::numeric_limits<float>::infinity()) {
      // Every score is -inf (a NaN would have made m NaN): a masked row.
      std::memset(sr, 0, n * sizeof(float));
      continue;
    }
    const float sum = opt::exp_shift_sum_nonpositive(sr, m, sr, n);
    opt::affine(sr, 1.0f / sum, 0.0f, sr, n);
  }
  opt::GemmArgs g2;
  g2.m = rows;
  g2.n = st.d;
  g2.k = st.l;
  g2.a = opt::MatrixView{scores, st.l, 1};
  g2.packed_b = &v;
  g2.c = hd.out + b * hd.out_batch + l0 * hd.out_row + h * st.d;
  g2.ldc = hd.out_row;
  MemoryAllocator scratch2(gemm_mem, gemm_bytes);
  return opt::gemm(g2, &scratch2, nullptr);
}

// The products of every head: keys and values packed per head, then the
// units of (head, block of query rows), both on the thread pool.
void run_heads(KernelContext& ctx, const AttentionState& st, const Heads& hd) {
  const char* op = ctx.op_name();
  const int64_t bh = st.b * st.h;
  const size_t kt_bytes = (opt::packed_b_bytes(st.d, st.l) + 63) & ~size_t{63};
  const size_t v_bytes = (opt::packed_b_bytes(st.l, st.d) + 63) & ~size_t{63};
  const auto heads = static_cast<size_t>(bh);
  ETR_KERNEL_CHECK(ctx,
                   kt_bytes != 0 && v_bytes != 0 &&
                       heads <= std::numeric_limits<size_t>::max() / 2 / (kt_bytes + v_bytes),
                   Error::InvalidArgument, "%s: %lld heads of [%lld, %lld] overflow the packing",
                   op, static_cast<long long>(bh), static_cast<long long>(st.l),
                   static_cast<long long>(st.d));
  auto* packed = static_cast<opt::PackedMatrix*>(
      ctx.allocate_temp(2 * heads * sizeof(opt::PackedMatrix), alignof(opt::PackedMatrix)));
  auto* pmem = static_cast<uint8_t*>(ctx.allocate_temp(heads * (kt_bytes + v_bytes), 64));
  ETR_KERNEL_CHECK(ctx, packed != nullptr && pmem != nullptr, Error::MemoryAllocationFailed,
                   "%s: %zu bytes of temp memory for the packed keys and values", op,
                   heads * (kt_bytes + v_bytes));
  ThreadPool* pool = ctx.thread_pool();
  // Each head's k^T [D, L] and v [L, D], packed straight from their rows.
  parallel_for(pool, 2 * heads, 1, [&](size_t first, size_t last) {
    for (size_t u = first; u < last; ++u) {
      const auto hb = static_cast<int64_t>(u / 2);
      const int64_t b = hb / st.h, h = hb % st.h;
      uint8_t* dst = pmem + (u / 2) * (kt_bytes + v_bytes);
      if (u % 2 == 0) {
        packed[u] = opt::pack_b(opt::MatrixView{hd.k.at(b, 0, h, st.d), 1, hd.k.row}, st.d, st.l,
                                reinterpret_cast<float*>(dst));
      } else {
        packed[u] = opt::pack_b(opt::MatrixView{hd.v.at(b, 0, h, st.d), hd.v.row, 1}, st.l, st.d,
                                reinterpret_cast<float*>(dst + kt_bytes));
      }
    }
  });
  const Slot sz = slot_sizes(st, hd, &packed[0], &packed[1]);
  const int64_t blocks = (st.l + kRowBlock - 1) / kRowBlock;
  const size_t units = heads * static_cast<size_t>(blocks);
  size_t threads = pool == nullptr ? 1 : std::min(pool->num_threads(), units);
  void* mem = nullptr;
  while (threads >= 1 && mem == nullptr) {
    mem = ctx.allocate_temp(sz.bytes * threads, 64);
    if (mem == nullptr) --threads;
  }
  ETR_KERNEL_CHECK(ctx, mem != nullptr, Error::MemoryAllocationFailed,
                   "%s: %zu bytes of temp memory for a block of scores", op, sz.bytes);
  opt::ScratchSlots slots(threads);
  std::atomic<int> failed{0};
  parallel_for(threads > 1 ? pool : nullptr, units, 1, [&](size_t first, size_t last) {
    bool fresh = false;
    const size_t sl = slots.acquire(&fresh);
    auto* base = static_cast<uint8_t*>(mem) + sl * sz.bytes;
    auto* scores = reinterpret_cast<float*>(base);
    void* gemm_mem = base + sz.score_floats * sizeof(float);
    for (size_t u = first; u < last; ++u) {
      const auto hb = static_cast<int64_t>(u) / blocks;
      const int64_t l0 = (static_cast<int64_t>(u) % blocks) * kRowBlock;
      const int64_t rows = std::min(kRowBlock, st.l - l0);
      if (run_unit(st, hd, packed[2 * hb], packed[2 * hb + 1], hb / st.h, hb % st.h, l0, rows,
                   scores, gemm_mem, sz.gemm_bytes) != Error::Ok) {
        failed.store(1);
      }
    }
    slots.release(sl);
  });
  ETR_KERNEL_CHECK(ctx, failed.load() == 0, Error::Internal, "%s: a product of the heads failed",
                   op);
}

// `t`'s data, or, when the output lies over it (the memory plan may put the
// result over an input that dies in the group: the loader leaves only an
// exact alias to the kernel), a copy in temp memory; null when temp memory
// is short.
const float* apart_from(KernelContext& ctx, const Tensor& t, const Tensor& out) {
  if (!opt::share_memory(out, t)) return t.const_data_ptr<float>();
  void* copy = ctx.allocate_temp(t.nbytes(), 64);
  if (copy != nullptr) std::memcpy(copy, t.const_data(), t.nbytes());
  return static_cast<const float*>(copy);
}

}  // namespace

Error opt_attention_prepare(KernelPrepareContext& ctx, const Tensor& qkv, const Tensor& q_rows,
                            const Tensor& k_rows, const Tensor& v_rows, const Tensor& q4,
                            const Tensor& k4, const Tensor& v4, const Tensor& q3, const Tensor& kt3,
                            const Tensor& s4, const Tensor& p3, const Tensor& v3, const Tensor& o4,
                            IntArrayRef expand_q, IntArrayRef expand_k, IntArrayRef expand_p,
                            IntArrayRef expand_v, Scalar scale_q, Scalar scale_k, Tensor& out) {
  if (out.dim() != 4 || qkv.dim() != 4) return Error::NotSupported;
  const int64_t l = out.size(0), b = out.size(1), h = out.size(2), d = out.size(3);
  if (l <= 0 || b <= 0 || h <= 0 || d <= 0) return Error::NotSupported;
  const int64_t bh = b * h, e = h * d;
  // Every view between the calls has the shape the attention reading
  // implies; the expands keep their input's shape.
  const bool shapes =
      has_sizes(out, {l, b, h, d}) && has_sizes(qkv, {l, b, 3, e}) &&
      has_sizes(q_rows, {l, bh, d}) && has_sizes(k_rows, {l, bh, d}) &&
      has_sizes(v_rows, {l, bh, d}) && has_sizes(q4, {b, h, l, d}) && has_sizes(k4, {b, h, l, d}) &&
      has_sizes(v4, {b, h, l, d}) &&
      product_views_ok(q3, kt3, s4, p3, v3, o4, expand_q, expand_k, expand_p, expand_v, b, h, l, d);
  if (!shapes || !finite_scale(scale_q) || !finite_scale(scale_k)) return Error::NotSupported;
  // Each of q and k scaled as the exporter's mul.Scalar does (in float),
  // the two scales applied to the product at once.
  const float alpha =
      static_cast<float>(scale_q.to_double()) * static_cast<float>(scale_k.to_double());
  return set_prepared(ctx, b, h, l, d, alpha, true);
}

void opt_attention_out(KernelContext& ctx, const Tensor& qkv, const Tensor&, const Tensor&,
                       const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                       const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                       IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, Scalar, Scalar,
                       Tensor& out) {
  const char* op = ctx.op_name();
  const AttentionState* st = ctx.state<AttentionState>();
  ETR_KERNEL_CHECK(ctx, st != nullptr, Error::Internal,
                   "%s: fused attention reached run without its prepared state", op);
  const int64_t e = st->h * st->d;
  ETR_KERNEL_CHECK(ctx, has_sizes(qkv, {st->l, st->b, 3, e}), Error::InvalidArgument,
                   "%s: q/k/v projection %s is not the prepared [%lld, %lld, 3, %lld]", op,
                   ShapeText(qkv).c_str(), static_cast<long long>(st->l),
                   static_cast<long long>(st->b), static_cast<long long>(e));
  ETR_KERNEL_CHECK(ctx, has_sizes(out, {st->l, st->b, st->h, st->d}), Error::InvalidArgument,
                   "%s: output %s is not the prepared [%lld, %lld, %lld, %lld]", op,
                   ShapeText(out).c_str(), static_cast<long long>(st->l),
                   static_cast<long long>(st->b), static_cast<long long>(st->h),
                   static_cast<long long>(st->d));
  const float* x = apart_from(ctx, qkv, out);
  ETR_KERNEL_CHECK(ctx, x != nullptr, Error::MemoryAllocationFailed,
                   "%s: %zu bytes of temp memory for a copy of the input under the output", op,
                   qkv.nbytes());
  // q, k and v side by side in each row of x [L, B, 3, E]; out [L, B, H, D].
  const ptrdiff_t row = st->b * 3 * e;
  Heads hd;
  hd.q = Operand{x, 3 * e, row};
  hd.k = Operand{x + e, 3 * e, row};
  hd.v = Operand{x + 2 * e, 3 * e, row};
  hd.out = out.data_ptr<float>();
  hd.out_batch = e;
  hd.out_row = st->b * e;
  run_heads(ctx, *st, hd);
}

Error opt_attention_mask_prepare(KernelPrepareContext& ctx, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const Tensor& scale, const Tensor& mask,
                                 const Tensor& q3, const Tensor& kt3, const Tensor& s4,
                                 const Tensor& p3, const Tensor& v3, const Tensor& o4,
                                 IntArrayRef expand_q, IntArrayRef expand_k, IntArrayRef expand_p,
                                 IntArrayRef expand_v, Tensor& out) {
  if (out.dim() != 4) return Error::NotSupported;
  const int64_t b = out.size(0), l = out.size(1), h = out.size(2), d = out.size(3);
  if (l <= 0 || b <= 0 || h <= 0 || d <= 0) return Error::NotSupported;
  const bool shapes =
      has_sizes(out, {b, l, h, d}) && has_sizes(q, {b, l, h, d}) && has_sizes(k, {b, l, h, d}) &&
      has_sizes(v, {b, l, h, d}) &&
      product_views_ok(q3, kt3, s4, p3, v3, o4, expand_q, expand_k, expand_p, expand_v, b, h, l, d);
  // The scale one value; the mask one [L, L] matrix broadcast over batch
  // and heads.
  bool operands = shapes && scale.dtype() == ScalarType::Float && scale.numel() == 1 &&
                  scale.dim() <= 4 && mask.dtype() == ScalarType::Float &&
                  opt::has_default_dim_order(mask) && mask.dim() >= 2 && mask.dim() <= 4 &&
                  mask.size(mask.dim() - 1) == l && mask.size(mask.dim() - 2) == l;
  for (size_t i = 0; operands && i + 2 < mask.dim(); ++i) operands = mask.size(i) == 1;
  if (!operands) return Error::NotSupported;
  // The scale is read at run (st.alpha then).
  return set_prepared(ctx, b, h, l, d, 1.0f, false);
}

void opt_attention_mask_out(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                            const Tensor& scale, const Tensor& mask, const Tensor&, const Tensor&,
                            const Tensor&, const Tensor&, const Tensor&, const Tensor&, IntArrayRef,
                            IntArrayRef, IntArrayRef, IntArrayRef, Tensor& out) {
  const char* op = ctx.op_name();
  const AttentionState* prepared = ctx.state<AttentionState>();
  ETR_KERNEL_CHECK(ctx, prepared != nullptr, Error::Internal,
                   "%s: fused attention reached run without its prepared state", op);
  AttentionState st = *prepared;
  for (const Tensor* t : std::initializer_list<const Tensor*>{&q, &k, &v, &out}) {
    ETR_KERNEL_CHECK(ctx, has_sizes(*t, {st.b, st.l, st.h, st.d}), Error::InvalidArgument,
                     "%s: %s is not the prepared [%lld, %lld, %lld, %lld]", op,
                     ShapeText(*t).c_str(), static_cast<long long>(st.b),
                     static_cast<long long>(st.l), static_cast<long long>(st.h),
                     static_cast<long long>(st.d));
  }
  ETR_KERNEL_CHECK(ctx,
                   scale.numel() == 1 && mask.numel() == st.l * st.l &&
                       scale.dtype() == ScalarType::Float && mask.dtype() == ScalarType::Float,
                   Error::InvalidArgument, "%s: scale %s or mask %s changed since prepare", op,
                   ShapeText(scale).c_str(), ShapeText(mask).c_str());
  st.alpha = scale.const_data_ptr<float>()[0];
  const float* qd = apart_from(ctx, q, out);
  const float* kd = apart_from(ctx, k, out);
  const float* vd = apart_from(ctx, v, out);
  const float* md = apart_from(ctx, mask, out);
  ETR_KERNEL_CHECK(ctx, qd != nullptr && kd != nullptr && vd != nullptr && md != nullptr,
                   Error::MemoryAllocationFailed,
                   "%s: temp memory for copies of the inputs under the output", op);
  // q, k, v and out all [B, L, H, D].
  const ptrdiff_t e = st.h * st.d;
  Heads hd;
  hd.q = Operand{qd, st.l * e, e};
  hd.k = Operand{kd, st.l * e, e};
  hd.v = Operand{vd, st.l * e, e};
  hd.out = out.data_ptr<float>();
  hd.out_batch = st.l * e;
  hd.out_row = e;
  hd.mask = md;
  run_heads(ctx, st, hd);
}

}  // namespace etr
