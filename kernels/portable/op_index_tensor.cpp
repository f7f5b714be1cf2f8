// aten::index.Tensor_out: advanced indexing with Long/Int index tensors and
// Bool/Byte masks (a mask stands for the index tensors of its nonzero
// coordinates), broadcast together; adjacent index dims keep their place in
// the result, separated ones move to the front, as in PyTorch. Every index
// is range-checked before anything is written. Element bytes are moved (any
// dtype); index tensors must be in the default dim order. Prepare checks
// everything that follows from dtypes and ranks (index dtypes, how many dims
// are indexed, the result's rank); run() checks sizes and index values.
#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/index_util.h"

namespace etr {
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

bool is_mask(const Tensor& t) {
  return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte;
}

// Expands a Bool/Byte mask over self dims [d, d + mask.dim()) (within self's
// rank: prepare checked) into one source per dim, reading coordinates from
// temp memory.
Error add_mask(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& mask, size_t d,
               IndexSpec* spec) {
  const size_t k = mask.dim();
  ETR_CHECK_OR_FAIL(is_default_layout(mask), Error::InvalidArgument,
                    "%s: mask %s does not fit self %s at dim %zu", op, ShapeText(mask).c_str(),
                    ShapeText(self).c_str(), d);
  for (size_t j = 0; j < k; ++j) {
    ETR_CHECK_OR_FAIL(mask.size(j) == self.size(d + j), Error::InvalidArgument,
                      "%s: mask %s does not match self %s at dim %zu", op, ShapeText(mask).c_str(),
                      ShapeText(self).c_str(), d + j);
  }
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data());  // bool and uint8: 1 byte
  int64_t count = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) count += m[i] != 0 ? 1 : 0;
  const size_t kk = k;
  int64_t* coords = static_cast<int64_t*>(
      ctx.allocate_temp(static_cast<size_t>(count) * kk * sizeof(int64_t), alignof(int64_t)));
  ETR_CHECK_OR_FAIL(coords != nullptr || count == 0, Error::MemoryAllocationFailed,
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
  return Error::Ok;
}

// Self dim d (< self's rank: prepare checked) indexed by t.
Error add_index_tensor(const char* op, const Tensor& self, const Tensor& t, size_t d,
                       IndexSpec* spec) {
  ETR_RETURN_IF_ERROR(check_indices(op, t, self.size(d), true));
  IndexSource& s = spec->src[spec->count++];
  s.self_dim = d;
  s.data = t.const_data();
  s.type = t.dtype();
  s.rank = t.dim();
  for (size_t j = 0; j < t.dim(); ++j) {
    s.sizes[j] = t.size(j);
    s.strides[j] = t.stride(j);
  }
  return Error::Ok;
}

// Right-aligned broadcast of every source shape into spec->bsizes.
Error broadcast_sources(const char* op, IndexSpec* spec) {
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
      ETR_CHECK_OR_FAIL(s.sizes[j] == b || s.sizes[j] == 1 || b == 1, Error::InvalidArgument,
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
  return Error::Ok;
}

Error build_spec(KernelContext& ctx, const char* op, const Tensor& self, OptionalTensorList indices,
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
    const bool mask = is_mask(*t);
    ETR_RETURN_IF_ERROR(mask ? add_mask(ctx, op, self, *t, d, spec)
                             : add_index_tensor(op, self, *t, d, spec));
    d += mask ? t->dim() : 1;
  }
  return broadcast_sources(op, spec);
}

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

Error index_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self,
                           OptionalTensorList indices, Tensor& out) {
  const char* op = ctx.op_name();
  size_t d = 0;        // self dims consumed
  size_t sources = 0;  // self dims indexed
  size_t brank = 0;    // rank of the broadcast index shape
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor* t = indices[i];
    if (t == nullptr) {
      ++d;
      continue;
    }
    if (is_mask(*t)) {
      const size_t k = t->dim();
      ETR_CHECK_OR_FAIL(k > 0, Error::NotSupported, "%s: 0-d masks are not supported", op);
      ETR_CHECK_OR_FAIL(d + k <= self.dim(), Error::InvalidArgument,
                        "%s: a %zu-d mask at dim %zu does not fit a %zu-d tensor", op, k, d,
                        self.dim());
      sources += k;
      d += k;
      brank = brank > 1 ? brank : 1;
    } else {
      ETR_CHECK_OR_FAIL(d < self.dim(), Error::InvalidArgument,
                        "%s: too many indices for a %zu-d tensor", op, self.dim());
      ETR_RETURN_IF_ERROR(check_index_dtype(op, *t));
      ++sources;
      ++d;
      brank = brank > t->dim() ? brank : t->dim();
    }
  }
  ETR_CHECK_OR_FAIL(d <= self.dim(), Error::InvalidArgument,
                    "%s: too many indices (%zu) for a %zu-d tensor", op, d, self.dim());
  ETR_CHECK_OR_FAIL(sources > 0, Error::InvalidArgument,
                    "%s: at least one index tensor is required", op);
  const size_t rank = self.dim() - sources + brank;
  ETR_CHECK_OR_FAIL(rank <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: result rank %zu exceeds the limit", op, rank);
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, rank);
}

void index_tensor_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                      Tensor& out) {
  const char* op = ctx.op_name();
  IndexSpec spec;
  ETR_KERNEL_TRY(ctx, build_spec(ctx, op, self, indices, &spec));
  const GatherLayout g = gather_layout(self, spec);
  const size_t rank = g.num_pre + spec.brank + g.num_post;
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < g.num_pre; ++i) sizes[i] = self.size(g.pre[i]);
  for (size_t j = 0; j < spec.brank; ++j) sizes[g.num_pre + j] = spec.bsizes[j];
  for (size_t i = 0; i < g.num_post; ++i) {
    sizes[g.num_pre + spec.brank + i] = self.size(g.post[i]);
  }
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, rank)));
  if (out.numel() == 0) return;
  gather(self, spec, g, out);
}

}  // namespace etr
