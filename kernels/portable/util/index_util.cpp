#include "kernels/portable/util/index_util.h"

namespace etr {

Error check_index_dtype(const char* op, const Tensor& index) {
  return check_dtype_in(op, "index tensor", index.dtype(), kIndexTypes);
}

Error check_indices(const char* op, const Tensor& index, int64_t size, bool allow_negative) {
  ETR_RETURN_IF_ERROR(check_dispatched(op, kIndexTypes.contains(index.dtype()), index.dtype()));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "index tensor", index));
  const int64_t lo = allow_negative ? -size : 0;
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = load_index(index.const_data(), index.dtype(), i);
    ETR_CHECK_OR_FAIL(v >= lo && v < size, Error::InvalidArgument,
                      "%s: index %lld out of range for a dim of size %lld", op,
                      static_cast<long long>(v), static_cast<long long>(size));
  }
  return Error::Ok;
}

bool is_index_mask(const Tensor& t) {
  return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte;
}

namespace {

// A mask over self dims [d, d + mask.dim()): one source per dim reading its
// nonzero coordinates from temp memory.
Error add_mask(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& mask, size_t d,
               MaskLayoutCheck check_mask, IndexPlan* p) {
  const size_t k = mask.dim();
  ETR_RETURN_IF_ERROR(check_mask(op, self, mask, d));
  for (size_t j = 0; j < k; ++j) {
    ETR_CHECK_OR_FAIL(mask.size(j) == self.size(d + j), Error::InvalidArgument,
                      "%s: mask %s does not match self %s at dim %zu", op, ShapeText(mask).c_str(),
                      ShapeText(self).c_str(), d + j);
  }
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data());  // bool and uint8: 1 byte
  int64_t n = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) n += m[i] != 0 ? 1 : 0;
  auto* coords = static_cast<int64_t*>(
      ctx.allocate_temp(static_cast<size_t>(n) * k * sizeof(int64_t), alignof(int64_t)));
  ETR_CHECK_OR_FAIL(coords != nullptr || n == 0, Error::MemoryAllocationFailed,
                    "%s: no temp memory for %lld mask coordinates", op, static_cast<long long>(n));
  int64_t row = 0;
  for (int64_t i = 0; i < mask.numel() && coords != nullptr; ++i) {
    if (m[i] == 0) continue;
    int64_t rem = i;
    for (size_t j = k; j-- > 0;) {
      coords[row * static_cast<int64_t>(k) + static_cast<int64_t>(j)] = rem % mask.size(j);
      rem /= mask.size(j);
    }
    ++row;
  }
  for (size_t j = 0; j < k; ++j) {
    IndexSource& s = p->src[p->count++];
    s.dim = d + j;
    s.data = coords == nullptr ? nullptr : coords + j;
    s.type = ScalarType::Long;
    s.rank = 1;
    s.sizes[0] = n;
    s.strides[0] = static_cast<int64_t>(k);
  }
  return Error::Ok;
}

// Self dim d indexed by the Long/Int tensor t.
Error add_index(const char* op, const Tensor& self, const Tensor& t, size_t d, IndexPlan* p) {
  ETR_RETURN_IF_ERROR(check_indices(op, t, self.size(d), true));
  IndexSource& s = p->src[p->count++];
  s.dim = d;
  s.data = t.const_data();
  s.type = t.dtype();
  s.rank = t.dim();
  for (size_t j = 0; j < t.dim(); ++j) {
    s.sizes[j] = t.size(j);
    s.strides[j] = t.stride(j);
  }
  return Error::Ok;
}

// Right-aligned broadcast of every source shape into p->bsizes, and each
// source's strides over it.
Error broadcast(const char* op, IndexPlan* p) {
  p->brank = 0;
  for (size_t i = 0; i < p->count; ++i) {
    if (p->src[i].rank > p->brank) p->brank = p->src[i].rank;
  }
  for (size_t j = 0; j < p->brank; ++j) p->bsizes[j] = 1;
  for (size_t i = 0; i < p->count; ++i) {
    const IndexSource& s = p->src[i];
    const size_t lead = p->brank - s.rank;
    for (size_t j = 0; j < s.rank; ++j) {
      int64_t& b = p->bsizes[lead + j];
      ETR_CHECK_OR_FAIL(s.sizes[j] == b || s.sizes[j] == 1 || b == 1, Error::InvalidArgument,
                        "%s: index shapes cannot be broadcast together", op);
      if (b == 1) b = s.sizes[j];
    }
  }
  for (size_t i = 0; i < p->count; ++i) {
    IndexSource& s = p->src[i];
    const size_t lead = p->brank - s.rank;
    for (size_t j = 0; j < p->brank; ++j) {
      s.bstrides[j] = (j < lead || s.sizes[j - lead] == 1) ? 0 : s.strides[j - lead];
    }
  }
  return Error::Ok;
}

}  // namespace

Error build_index_plan(KernelContext& ctx, const char* op, const Tensor& self,
                       OptionalTensorList indices, MaskLayoutCheck check_mask, IndexPlan* p) {
  size_t d = 0, first = 0;
  bool seen = false, gap = false, adjacent = true;
  bool indexed[kTensorMaxDim] = {};
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor* t = indices[i];
    if (t == nullptr) {
      gap = gap || seen;
      ++d;
      continue;
    }
    if (!seen) first = d;
    adjacent = adjacent && !gap;
    seen = true;
    const bool mask = is_index_mask(*t);
    const size_t k = mask ? t->dim() : 1;
    ETR_RETURN_IF_ERROR(mask ? add_mask(ctx, op, self, *t, d, check_mask, p)
                             : add_index(op, self, *t, d, p));
    for (size_t j = 0; j < k; ++j) indexed[d + j] = true;
    d += k;
  }
  ETR_RETURN_IF_ERROR(broadcast(op, p));
  p->num_pre = p->num_post = 0;
  for (size_t k = 0; k < self.dim(); ++k) {
    if (indexed[k]) continue;
    if (adjacent && k < first) {
      p->pre[p->num_pre++] = k;
    } else {
      p->post[p->num_post++] = k;
    }
  }
  return Error::Ok;
}

int64_t index_result_size(const IndexPlan& p, const Tensor& self, size_t r) {
  if (r < p.num_pre) return self.size(p.pre[r]);
  if (r < p.num_pre + p.brank) return p.bsizes[r - p.num_pre];
  return self.size(p.post[r - p.num_pre - p.brank]);
}

int64_t indexed_offset(const IndexPlan& p, const Tensor& self, const int64_t* b) {
  int64_t off = 0;
  for (size_t i = 0; i < p.count; ++i) {
    const IndexSource& s = p.src[i];
    int64_t at = 0;
    for (size_t j = 0; j < p.brank; ++j) at += b[j] * s.bstrides[j];
    int64_t v = load_index(s.data, s.type, at);
    if (v < 0) v += self.size(s.dim);
    off += v * self.stride(s.dim);
  }
  return off;
}

}  // namespace etr
