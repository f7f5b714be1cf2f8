// Gathers by index tensors: aten::index_select.out, aten::embedding.out and
// aten::index.Tensor_out (advanced indexing with Long/Int index tensors and
// Bool/Byte masks, broadcasting, adjacent and non-adjacent index dims).
// Every index is range-checked before anything is written. Element bytes are
// moved, so self may have any dtype; index tensors must be contiguous.
#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

bool is_index_type(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

int64_t load_index(const void* data, ScalarType t, int64_t i) {
  return t == ScalarType::Long ? static_cast<const int64_t*>(data)[i]
                               : static_cast<const int32_t*>(data)[i];
}

// Checks an index tensor's dtype/layout and that every entry lies in
// [lo, size) where lo is -size when negative indices are allowed, else 0.
bool check_indices(KernelContext& ctx, const char* op, const Tensor& index, int64_t size,
                   bool allow_negative) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_index_type(index.dtype()), Error::InvalidType,
                            "%s: index tensor must be Long or Int, got %s", op,
                            to_string(index.dtype()));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_default_layout(index), Error::NotSupported,
                            "%s: index tensors must have the default dim order", op);
  const int64_t lo = allow_negative ? -size : 0;
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = load_index(index.const_data(), index.dtype(), i);
    ETR_KERNEL_CHECK_OR_FALSE(ctx, v >= lo && v < size, Error::InvalidArgument,
                              "%s: index %lld out of range for a dim of size %lld", op,
                              static_cast<long long>(v), static_cast<long long>(size));
  }
  return true;
}

// out[..., dst_index, ...] = self[..., src_index, ...] along dim d (out has
// self's rank; a 0-d self is copied whole).
void copy_slab(const Tensor& self, size_t d, int64_t src_index, Tensor& out, int64_t dst_index) {
  CopyPlan plan;
  for (size_t k = 0; k < self.dim(); ++k) {
    if (k != d) plan.add(self.size(k), out.stride(k), self.stride(k));
  }
  const int64_t elem = static_cast<int64_t>(self.element_size());
  const int64_t src_off = self.dim() == 0 ? 0 : src_index * self.stride(d);
  const int64_t dst_off = self.dim() == 0 ? 0 : dst_index * out.stride(d);
  run_copy(plan, static_cast<char*>(out.mutable_data()) + dst_off * elem,
           static_cast<const char*>(self.const_data()) + src_off * elem, self.element_size());
}

}  // namespace

void index_select_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                      Tensor& out) {
  constexpr const char* kOp = "aten::index_select.out";
  size_t d = 0;
  if (!wrap_dim_checked(ctx, kOp, dim, self.dim(), &d)) return;
  ETR_KERNEL_CHECK(ctx, index.dim() <= 1, Error::InvalidArgument,
                   "%s: index must be a vector, got %s", kOp, shape_str(index).c_str());
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  ETR_KERNEL_CHECK(ctx, self.dim() > 0 || index.numel() == 1, Error::InvalidArgument,
                   "%s: index into a 0-d tensor must have exactly one value", kOp);
  if (!check_indices(ctx, kOp, index, size, false)) return;
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < self.dim(); ++k) sizes[k] = k == d ? index.numel() : self.size(k);
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out(ctx, kOp, out, sizes, self.dim())) {
    return;
  }
  if (out.numel() == 0) return;
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = load_index(index.const_data(), index.dtype(), i);
    copy_slab(self, d, v, out, i);
  }
}

void embedding_out(KernelContext& ctx, const Tensor& weight, const Tensor& indices,
                   int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/, bool /*sparse*/,
                   Tensor& out) {
  constexpr const char* kOp = "aten::embedding.out";
  ETR_KERNEL_CHECK(ctx, weight.dim() == 2, Error::InvalidArgument, "%s: weight must be 2-D, got %s",
                   kOp, shape_str(weight).c_str());
  ETR_KERNEL_CHECK(ctx, indices.dim() < kTensorMaxDim, Error::InvalidArgument,
                   "%s: indices rank %zu too large", kOp, indices.dim());
  if (!check_indices(ctx, kOp, indices, weight.size(0), false)) return;
  int64_t sizes[kTensorMaxDim];
  const size_t r = indices.dim();
  for (size_t k = 0; k < r; ++k) sizes[k] = indices.size(k);
  sizes[r] = weight.size(1);
  if (!check_copy_dtypes(ctx, kOp, weight, out) || !resize_out(ctx, kOp, out, sizes, r + 1)) {
    return;
  }
  ETR_KERNEL_CHECK(ctx, is_default_layout(out), Error::NotSupported,
                   "%s: out must have the default dim order", kOp);
  if (out.numel() == 0) return;
  CopyPlan row;
  row.add(weight.size(1), 1, weight.stride(1));
  const int64_t elem = static_cast<int64_t>(weight.element_size());
  for (int64_t i = 0; i < indices.numel(); ++i) {
    const int64_t v = load_index(indices.const_data(), indices.dtype(), i);
    run_copy(row, static_cast<char*>(out.mutable_data()) + i * weight.size(1) * elem,
             static_cast<const char*>(weight.const_data()) + v * weight.stride(0) * elem,
             weight.element_size());
  }
}

// ---------------------------------------------------------------------------
// index.Tensor

namespace {

// One indexed dim of self: a Long/Int index array viewed with its own sizes
// and strides (a mask contributes one column of its nonzero coordinates).
struct IndexSource {
  size_t self_dim = 0;
  const void* data = nullptr;
  ScalarType type = ScalarType::Long;
  size_t rank = 0;
  int64_t sizes[kTensorMaxDim] = {};
  int64_t strides[kTensorMaxDim] = {};
  int64_t bstrides[kTensorMaxDim] = {};  // strides over the broadcast shape
};

struct IndexSpec {
  size_t count = 0;
  IndexSource src[kTensorMaxDim];
  size_t brank = 0;
  int64_t bsizes[kTensorMaxDim] = {};
  bool adjacent = true;
  size_t first_dim = 0;  // first indexed self dim
};

// Expands a Bool/Byte mask over self dims [d, d + mask.dim()) into one
// source per dim, reading coordinates from temp memory.
bool add_mask(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& mask, size_t d,
              IndexSpec* spec) {
  const size_t k = mask.dim();
  ETR_KERNEL_CHECK_OR_FALSE(ctx, k > 0, Error::NotSupported, "%s: 0-d masks are not supported", op);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, d + k <= self.dim() && is_default_layout(mask),
                            Error::InvalidArgument, "%s: mask %s does not fit self %s at dim %zu",
                            op, shape_str(mask).c_str(), shape_str(self).c_str(), d);
  for (size_t j = 0; j < k; ++j) {
    ETR_KERNEL_CHECK_OR_FALSE(ctx, mask.size(j) == self.size(d + j), Error::InvalidArgument,
                              "%s: mask %s does not match self %s at dim %zu", op,
                              shape_str(mask).c_str(), shape_str(self).c_str(), d + j);
  }
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data());  // bool and uint8: 1 byte
  int64_t count = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) count += m[i] != 0 ? 1 : 0;
  const size_t kk = k;
  int64_t* coords = static_cast<int64_t*>(
      ctx.allocate_temp(static_cast<size_t>(count) * kk * sizeof(int64_t), alignof(int64_t)));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, coords != nullptr || count == 0, Error::MemoryAllocationFailed,
                            "%s: no temp memory for %lld mask coordinates", op,
                            static_cast<long long>(count));
  int64_t row = 0;
  for (int64_t i = 0; i < mask.numel() && coords != nullptr; ++i) {
    if (m[i] == 0) continue;
    for (size_t j = k, rem = static_cast<size_t>(i); j-- > 0;) {
      coords[row * static_cast<int64_t>(kk) + static_cast<int64_t>(j)] =
          static_cast<int64_t>(rem % static_cast<size_t>(mask.size(j)));
      rem /= static_cast<size_t>(mask.size(j));
    }
    ++row;
  }
  for (size_t j = 0; j < k; ++j) {
    IndexSource& s = spec->src[spec->count++];
    s.self_dim = d + j;
    s.data = coords == nullptr ? nullptr : coords + j;
    s.type = ScalarType::Long;
    s.rank = 1;
    s.sizes[0] = count;
    s.strides[0] = static_cast<int64_t>(kk);
  }
  return true;
}

bool add_index_tensor(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& t,
                      size_t d, IndexSpec* spec) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, d < self.dim(), Error::InvalidArgument,
                            "%s: too many indices for a %zu-d tensor", op, self.dim());
  if (!check_indices(ctx, op, t, self.size(d), true)) return false;
  IndexSource& s = spec->src[spec->count++];
  s.self_dim = d;
  s.data = t.const_data();
  s.type = t.dtype();
  s.rank = t.dim();
  for (size_t j = 0; j < t.dim(); ++j) {
    s.sizes[j] = t.size(j);
    s.strides[j] = t.stride(j);
  }
  return true;
}

// Right-aligned broadcast of every source shape into spec->bsizes.
bool broadcast_sources(KernelContext& ctx, const char* op, IndexSpec* spec) {
  spec->brank = 0;
  for (size_t i = 0; i < spec->count; ++i) {
    if (spec->src[i].rank > spec->brank) spec->brank = spec->src[i].rank;
  }
  for (size_t j = 0; j < spec->brank; ++j) spec->bsizes[j] = 1;
  for (size_t i = 0; i < spec->count; ++i) {
    IndexSource& s = spec->src[i];
    const size_t lead = spec->brank - s.rank;
    for (size_t j = 0; j < s.rank; ++j) {
      int64_t& b = spec->bsizes[lead + j];
      ETR_KERNEL_CHECK_OR_FALSE(ctx, s.sizes[j] == b || s.sizes[j] == 1 || b == 1,
                                Error::InvalidArgument,
                                "%s: index shapes cannot be broadcast together", op);
      if (b == 1) b = s.sizes[j];
    }
  }
  for (size_t i = 0; i < spec->count; ++i) {
    IndexSource& s = spec->src[i];
    const size_t lead = spec->brank - s.rank;
    for (size_t j = 0; j < spec->brank; ++j) {
      s.bstrides[j] = (j < lead || s.sizes[j - lead] == 1) ? 0 : s.strides[j - lead];
    }
  }
  return true;
}

bool build_spec(KernelContext& ctx, const char* op, const Tensor& self, OptionalTensorList indices,
                IndexSpec* spec) {
  size_t d = 0;
  bool seen = false, gap = false;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor* t = indices[i];
    if (t == nullptr) {
      gap = gap || seen;
      ++d;
      continue;
    }
    if (!seen) spec->first_dim = d;
    if (gap) spec->adjacent = false;
    seen = true;
    const bool mask = t->dtype() == ScalarType::Bool || t->dtype() == ScalarType::Byte;
    if (mask ? !add_mask(ctx, op, self, *t, d, spec)
             : !add_index_tensor(ctx, op, self, *t, d, spec)) {
      return false;
    }
    d += mask ? t->dim() : 1;
  }
  ETR_KERNEL_CHECK_OR_FALSE(ctx, d <= self.dim(), Error::InvalidArgument,
                            "%s: too many indices (%zu) for a %zu-d tensor", op, d, self.dim());
  ETR_KERNEL_CHECK_OR_FALSE(ctx, spec->count > 0, Error::InvalidArgument,
                            "%s: at least one index tensor is required", op);
  return broadcast_sources(ctx, op, spec);
}

}  // namespace

namespace {

// Self dims that are not indexed, split into those before the index block
// (kept in front only when the block is adjacent) and the rest.
struct GatherLayout {
  size_t num_pre = 0, num_post = 0;
  size_t pre[kTensorMaxDim] = {};
  size_t post[kTensorMaxDim] = {};
};

GatherLayout gather_layout(const Tensor& self, const IndexSpec& spec) {
  bool indexed[kTensorMaxDim] = {};
  for (size_t i = 0; i < spec.count; ++i) indexed[spec.src[i].self_dim] = true;
  GatherLayout g;
  for (size_t k = 0; k < self.dim(); ++k) {
    if (indexed[k]) continue;
    if (spec.adjacent && k < spec.first_dim)
      g.pre[g.num_pre++] = k;
    else
      g.post[g.num_post++] = k;
  }
  return g;
}

void gather(const Tensor& self, const IndexSpec& spec, const GatherLayout& g, Tensor& out) {
  CopyPlan plan;
  for (size_t i = 0; i < g.num_pre; ++i) {
    plan.add(self.size(g.pre[i]), out.stride(i), self.stride(g.pre[i]));
  }
  for (size_t i = 0; i < g.num_post; ++i) {
    plan.add(self.size(g.post[i]), out.stride(g.num_pre + spec.brank + i), self.stride(g.post[i]));
  }
  const int64_t elem = static_cast<int64_t>(self.element_size());
  int64_t b[kTensorMaxDim] = {};
  while (true) {
    int64_t src_off = 0, dst_off = 0;
    for (size_t j = 0; j < spec.brank; ++j) dst_off += b[j] * out.stride(g.num_pre + j);
    for (size_t i = 0; i < spec.count; ++i) {
      const IndexSource& s = spec.src[i];
      int64_t at = 0;
      for (size_t j = 0; j < spec.brank; ++j) at += b[j] * s.bstrides[j];
      int64_t v = load_index(s.data, s.type, at);
      if (v < 0) v += self.size(s.self_dim);
      src_off += v * self.stride(s.self_dim);
    }
    run_copy(plan, static_cast<char*>(out.mutable_data()) + dst_off * elem,
             static_cast<const char*>(self.const_data()) + src_off * elem, self.element_size());
    size_t j = spec.brank;
    while (j > 0 && ++b[j - 1] == spec.bsizes[j - 1]) b[--j] = 0;
    if (j == 0) return;
  }
}

}  // namespace

void index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                      Tensor& out) {
  constexpr const char* kOp = "aten::index.Tensor_out";
  IndexSpec spec;
  if (!build_spec(ctx, kOp, self, indices, &spec)) return;
  const GatherLayout g = gather_layout(self, spec);
  const size_t rank = g.num_pre + spec.brank + g.num_post;
  ETR_KERNEL_CHECK(ctx, rank <= kTensorMaxDim, Error::InvalidArgument,
                   "%s: result rank %zu exceeds the limit", kOp, rank);
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < g.num_pre; ++i) sizes[i] = self.size(g.pre[i]);
  for (size_t j = 0; j < spec.brank; ++j) sizes[g.num_pre + j] = spec.bsizes[j];
  for (size_t i = 0; i < g.num_post; ++i) {
    sizes[g.num_pre + spec.brank + i] = self.size(g.post[i]);
  }
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out(ctx, kOp, out, sizes, rank)) return;
  if (out.numel() == 0) return;
  gather(self, spec, g, out);
}

}  // namespace etr
