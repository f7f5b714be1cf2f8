// aten::permute_copy.out (see layout.h). The output is written in order;
// the collapsed problem is either contiguous rows (the last out dim is
// contiguous in the input too: head split/merge) or a transpose between the
// out's last dim and the input's contiguous dim (weight transposes), done in
// square tiles so both sides stay in cache.
#include <cstring>

#include "kernels/cpu_math/vec_transpose.h"
#include "kernels/optimized/layout.h"
#include "kernels/optimized/util/vec_broadcast.h"
#include "kernels/portable/util/checks.h"

namespace etr {
namespace {

constexpr size_t kGrainBytes = size_t{512} << 10;
constexpr int64_t kTile = 32;
// Constant inputs up to this size are permuted once at load (PermuteState).
constexpr size_t kMaxCachedBytes = size_t{64} << 20;
// A copy is split over threads in pieces of this many bytes.
constexpr size_t kCopyChunkBytes = size_t{1} << 20;

struct PermuteState {
  const void* data = nullptr;
  size_t nbytes = 0;
};

// The permutation collapsed: out dim i has size sizes[i] and input element
// stride in_strides[i]; out is contiguous.
struct Collapsed {
  size_t rank = 0;
  int64_t sizes[kTensorMaxDim] = {};
  int64_t in_strides[kTensorMaxDim] = {};
  int64_t out_strides[kTensorMaxDim] = {};
};

// Out dim i is input dim dims[i] (already wrapped); sizes and strides are the
// input's, in elements.
void collapse(size_t rank, const int64_t* sizes, const int64_t* strides, const size_t* dims,
              Collapsed* c) {
  size_t r = 0;
  for (size_t i = 0; i < rank; ++i) {
    const size_t src = dims[i];
    const int64_t size = sizes[src];
    const int64_t stride = strides[src];
    if (size == 1) continue;
    if (r > 0 && c->in_strides[r - 1] == stride * size) {
      c->sizes[r - 1] *= size;
      c->in_strides[r - 1] = stride;
      continue;
    }
    c->sizes[r] = size;
    c->in_strides[r] = stride;
    ++r;
  }
  c->rank = r;
  int64_t s = 1;
  for (size_t i = r; i-- > 0;) {
    c->out_strides[i] = s;
    s *= c->sizes[i];
  }
}

size_t wrap(int64_t d, size_t rank) {
  return static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(rank) : d);
}

// Input and output element offsets of outer item `o` over the dims other than
// `skip_a` and `skip_b` (row-major over the remaining dims).
void outer_offsets(const Collapsed& c, size_t skip_a, size_t skip_b, int64_t o, int64_t* in_off,
                   int64_t* out_off) {
  *in_off = 0;
  *out_off = 0;
  for (size_t d = c.rank; d-- > 0;) {
    if (d == skip_a || d == skip_b) continue;
    const int64_t i = o % c.sizes[d];
    o /= c.sizes[d];
    *in_off += i * c.in_strides[d];
    *out_off += i * c.out_strides[d];
  }
}

template <typename T>
void copy_rows(ThreadPool* pool, const Collapsed& c, const T* in, T* out) {
  const size_t last = c.rank - 1;
  const int64_t row = c.sizes[last];
  const int64_t rows = c.out_strides[0] * c.sizes[0] / row;
  const size_t row_bytes = static_cast<size_t>(row) * sizeof(T);
  const size_t grain = row_bytes >= kGrainBytes ? 1 : kGrainBytes / row_bytes;
  parallel_for(pool, static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      int64_t in_off = 0, out_off = 0;
      outer_offsets(c, last, last, static_cast<int64_t>(r), &in_off, &out_off);
      std::memcpy(out + out_off, in + in_off, row_bytes);
    }
  });
}

// out[i * ldo + j] = in[j * ldi + i] for i < rows (the input's contiguous
// dim), j < cols (the out's last dim).
template <typename T>
void transpose_tile(const T* in, int64_t ldi, T* out, int64_t ldo, int64_t rows, int64_t cols) {
  if constexpr (sizeof(T) == 4) {
    opt::transpose_f32(reinterpret_cast<const float*>(in), ldi, reinterpret_cast<float*>(out), ldo,
                       rows, cols);
  } else {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) out[i * ldo + j] = in[j * ldi + i];
    }
  }
}

template <typename T>
void transpose(ThreadPool* pool, const Collapsed& c, size_t q, const T* in, T* out) {
  const size_t last = c.rank - 1;
  const int64_t rows = c.sizes[q];     // input-contiguous dim
  const int64_t cols = c.sizes[last];  // out-contiguous dim
  const int64_t ldi = c.in_strides[last];
  const int64_t ldo = c.out_strides[q];
  const int64_t outer = c.out_strides[0] * c.sizes[0] / (rows * cols);
  const int64_t row_blocks = (rows + kTile - 1) / kTile;
  const size_t item_bytes = static_cast<size_t>(kTile * cols) * sizeof(T);
  const size_t grain = item_bytes >= kGrainBytes ? 1 : kGrainBytes / item_bytes;
  parallel_for(pool, static_cast<size_t>(outer * row_blocks), grain, [&](size_t begin, size_t end) {
    for (size_t item = begin; item < end; ++item) {
      const int64_t o = static_cast<int64_t>(item) / row_blocks;
      const int64_t i0 = (static_cast<int64_t>(item) % row_blocks) * kTile;
      const int64_t ni = rows - i0 < kTile ? rows - i0 : kTile;
      int64_t in_off = 0, out_off = 0;
      outer_offsets(c, q, last, o, &in_off, &out_off);
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
        const int64_t nj = cols - j0 < kTile ? cols - j0 : kTile;
        transpose_tile(in + in_off + i0 + j0 * ldi, ldi, out + out_off + i0 * ldo + j0, ldo, ni,
                       nj);
      }
    }
  });
}

template <typename T>
void permute(ThreadPool* pool, const Collapsed& c, const void* in_data, void* out_data) {
  const T* in = static_cast<const T*>(in_data);
  T* out = static_cast<T*>(out_data);
  if (c.rank == 0 || c.in_strides[c.rank - 1] == 1) {
    if (c.rank == 0) {
      *out = *in;
      return;
    }
    copy_rows(pool, c, in, out);
    return;
  }
  size_t q = 0;
  while (q < c.rank && c.in_strides[q] != 1) ++q;
  transpose(pool, c, q, in, out);
}

// Permutes a default-layout tensor of `rank` dims (`sizes`, contiguous) by
// `dims` (wrapped) into `out_data`, contiguous.
void permute_raw(ThreadPool* pool, size_t rank, const int64_t* sizes, const size_t* dims,
                 size_t element_size, const void* in, void* out_data) {
  int64_t strides[kTensorMaxDim];
  int64_t s = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[i] = s;
    s *= sizes[i];
  }
  Collapsed c;
  collapse(rank, sizes, strides, dims, &c);
  switch (element_size) {
    case 1: return permute<uint8_t>(pool, c, in, out_data);
    case 2: return permute<uint16_t>(pool, c, in, out_data);
    case 4: return permute<uint32_t>(pool, c, in, out_data);
    default: return permute<uint64_t>(pool, c, in, out_data);
  }
}

// Permutes `self` by `dims` into `out_data` (out's contiguous layout).
void permute_tensor(ThreadPool* pool, const Tensor& self, IntArrayRef dims, void* out_data) {
  const size_t rank = self.dim();
  int64_t sizes[kTensorMaxDim];
  size_t wrapped[kTensorMaxDim];
  for (size_t i = 0; i < rank; ++i) {
    sizes[i] = self.size(i);
    wrapped[i] = wrap(dims[i], rank);
  }
  permute_raw(pool, rank, sizes, wrapped, self.element_size(), self.const_data(), out_data);
}

// True when `dims` is a permutation of 0 .. rank - 1 (negative dims wrapped).
bool is_permutation(IntArrayRef dims, size_t rank) {
  if (dims.size() != rank || rank > kTensorMaxDim) return false;
  uint32_t seen = 0;
  for (int64_t d : dims) {
    const int64_t w = d < 0 ? d + static_cast<int64_t>(rank) : d;
    if (w < 0 || w >= static_cast<int64_t>(rank) || (seen >> w & 1u) != 0) return false;
    seen |= uint32_t{1} << w;
  }
  return true;
}

// A default-layout input and output of one dtype with a supported element size.
bool plain_pair(const Tensor& self, const Tensor& out) {
  const size_t es = self.element_size();
  return out.dtype() == self.dtype() && (es == 1 || es == 2 || es == 4 || es == 8) &&
         opt::has_default_dim_order(self) && opt::has_default_dim_order(out);
}

// A clone's dim_order argument that keeps the default layout of `rank` dims.
bool default_dim_order(const std::optional<IntArrayRef>& dim_order, size_t rank) {
  if (!dim_order.has_value()) return true;
  if (dim_order->size() != rank) return false;
  for (size_t i = 0; i < rank; ++i) {
    if ((*dim_order)[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// The permute of a fused chain: straight into `out`, or, when the memory
// plan put `out` over the input (dead after the chain's first step), into
// the first step's output `scratch` (the loader checked it is apart from the
// input) and then moved.
void permute_chain(KernelContext& ctx, size_t rank, const int64_t* sizes, const size_t* dims,
                   const Tensor& self, Tensor& scratch, Tensor& out) {
  if (self.numel() == 0) return;
  if (!opt::share_memory(out, self)) {
    permute_raw(ctx.thread_pool(), rank, sizes, dims, self.element_size(), self.const_data(),
                out.mutable_data());
    return;
  }
  ETR_KERNEL_CHECK(ctx, scratch.nbytes() >= self.nbytes() && scratch.mutable_data() != nullptr,
                   Error::Internal, "%s: the chain's first output cannot hold the permute",
                   ctx.op_name());
  permute_raw(ctx.thread_pool(), rank, sizes, dims, self.element_size(), self.const_data(),
              scratch.mutable_data());
  std::memmove(out.mutable_data(), scratch.const_data(), self.nbytes());
}

void copy_bytes(ThreadPool* pool, const void* src, void* dst, size_t nbytes) {
  const size_t chunks = (nbytes + kCopyChunkBytes - 1) / kCopyChunkBytes;
  parallel_for(pool, chunks, 1, [&](size_t begin, size_t end) {
    const size_t from = begin * kCopyChunkBytes;
    const size_t to = end * kCopyChunkBytes < nbytes ? end * kCopyChunkBytes : nbytes;
    std::memcpy(static_cast<uint8_t*>(dst) + from, static_cast<const uint8_t*>(src) + from,
                to - from);
  });
}

}  // namespace

Error opt_permute_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                               Tensor& out) {
  const size_t rank = self.dim();
  if (!plain_pair(self, out) || out.dim() != rank || !is_permutation(dims, rank)) {
    return Error::NotSupported;
  }
  // A constant input (a weight transpose) is permuted once here when the
  // method allocator has room; run then only copies the result.
  if (ctx.is_constant_arg(0) && self.numel() > 0 && self.nbytes() <= kMaxCachedBytes) {
    PermuteState* state = ctx.make_state<PermuteState>();
    void* data = state == nullptr ? nullptr : ctx.allocate(self.nbytes(), 64);
    if (data != nullptr) {
      permute_tensor(ctx.thread_pool(), self, dims, data);
      state->data = data;
      state->nbytes = self.nbytes();
      ctx.set_state(state);
    }
  }
  return Error::Ok;
}

void opt_permute_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  const size_t rank = self.dim();
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < rank; ++i) sizes[i] = self.size(wrap(dims[i], rank));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, Span<const int64_t>(sizes, rank)));
  if (self.numel() == 0) return;
  const PermuteState* state = ctx.state<PermuteState>();
  if (state != nullptr) {
    // A constant input permuted at load: copy the result.
    copy_bytes(ctx.thread_pool(), state->data, out.mutable_data(), state->nbytes);
    return;
  }
  permute_tensor(ctx.thread_pool(), self, dims, out.mutable_data());
}

Error opt_unsqueeze_permute_squeeze_prepare(KernelPrepareContext&, const Tensor& self, int64_t dim,
                                            IntArrayRef dims, IntArrayRef squeeze_dims,
                                            std::optional<IntArrayRef> dim_order, Tensor&,
                                            Tensor& out) {
  const size_t rank = self.dim() + 1;
  const int64_t r = static_cast<int64_t>(rank);
  if (!plain_pair(self, out) || dim < -r || dim >= r || !is_permutation(dims, rank) ||
      !default_dim_order(dim_order, out.dim())) {
    return Error::NotSupported;
  }
  for (int64_t d : squeeze_dims) {
    if (d < -r || d >= r) return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_unsqueeze_permute_squeeze_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                                       IntArrayRef dims, IntArrayRef squeeze_dims,
                                       std::optional<IntArrayRef>, Tensor& scratch, Tensor& out) {
  // The unsqueezed input: a dim of size 1 at `dim`.
  const size_t rank = self.dim() + 1;
  const size_t at = wrap(dim, rank);
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0, j = 0; i < rank; ++i) sizes[i] = i == at ? 1 : self.size(j++);
  size_t wrapped[kTensorMaxDim];
  for (size_t i = 0; i < rank; ++i) wrapped[i] = wrap(dims[i], rank);
  // The permuted shape less the squeezed dims of size 1.
  int64_t out_sizes[kTensorMaxDim];
  size_t out_rank = 0;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t size = sizes[wrapped[i]];
    bool squeezed = false;
    for (int64_t d : squeeze_dims) squeezed = squeezed || (size == 1 && wrap(d, rank) == i);
    if (!squeezed) out_sizes[out_rank++] = size;
  }
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, Span<const int64_t>(out_sizes, out_rank)));
  permute_chain(ctx, rank, sizes, wrapped, self, scratch, out);
}

Error opt_permute_clone_permute_permute_prepare(KernelPrepareContext&, const Tensor& self,
                                                IntArrayRef dims0,
                                                std::optional<IntArrayRef> dim_order,
                                                IntArrayRef dims1, IntArrayRef dims2, Tensor&,
                                                Tensor& out) {
  const size_t rank = self.dim();
  if (!plain_pair(self, out) || out.dim() != rank || !is_permutation(dims0, rank) ||
      !is_permutation(dims1, rank) || !is_permutation(dims2, rank) ||
      !default_dim_order(dim_order, rank)) {
    return Error::NotSupported;
  }
  return Error::Ok;
}

void opt_permute_clone_permute_permute_out(KernelContext& ctx, const Tensor& self,
                                           IntArrayRef dims0, std::optional<IntArrayRef>,
                                           IntArrayRef dims1, IntArrayRef dims2, Tensor& scratch,
                                           Tensor& out) {
  // Out dim k is dim dims2[k] of the second permute's result, which is dim
  // dims1[.] of the first's, which is input dim dims0[.].
  const size_t rank = self.dim();
  int64_t sizes[kTensorMaxDim];
  int64_t out_sizes[kTensorMaxDim];
  size_t composed[kTensorMaxDim];
  for (size_t k = 0; k < rank; ++k) {
    sizes[k] = self.size(k);
    composed[k] = wrap(dims0[wrap(dims1[wrap(dims2[k], rank)], rank)], rank);
  }
  for (size_t k = 0; k < rank; ++k) out_sizes[k] = sizes[composed[k]];
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, Span<const int64_t>(out_sizes, rank)));
  permute_chain(ctx, rank, sizes, composed, self, scratch, out);
}

}  // namespace etr
