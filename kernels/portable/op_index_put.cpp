// aten::index_put.out and aten::index_put_: self[indices] = values (or +=
// with accumulate), the write-side of index.Tensor. Indices are Long/Int
// tensors (negative ones count from the end) or Bool/Byte masks (a mask
// stands for its nonzero coordinates), broadcast together; the indexed
// positions form a result shape laid out as in index.Tensor (adjacent index
// dims keep their place, separated ones move to the front), and values is
// broadcast to it. Every index is range-checked before anything is written.
// Without accumulate element bytes are moved (any dtype; a repeated index
// keeps the last value); accumulate adds in self's dtype (real and bool).
// values has self's dtype, as torch requires; index tensors and masks must
// be in the default dim order.
#include <cstring>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/index_util.h"

namespace etr {
namespace {

// One indexed self dim: index data viewed with its own sizes and strides,
// plus its strides over the broadcast index shape.
struct PutSource {
  size_t dim = 0;
  const void* data = nullptr;
  ScalarType type = ScalarType::Long;
  size_t rank = 0;
  int64_t sizes[kTensorMaxDim] = {};
  int64_t strides[kTensorMaxDim] = {};
  int64_t bstrides[kTensorMaxDim] = {};
};

// The indexed positions: sources, the broadcast index shape and the
// result's layout ([pre, broadcast, post] self dims).
struct PutPlan {
  size_t count = 0;
  PutSource src[kTensorMaxDim];
  size_t brank = 0;
  int64_t bsizes[kTensorMaxDim] = {};
  size_t num_pre = 0, num_post = 0;
  size_t pre[kTensorMaxDim] = {};
  size_t post[kTensorMaxDim] = {};
  size_t rank() const { return num_pre + brank + num_post; }
};

bool is_mask(const Tensor& t) {
  return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte;
}

// A mask over self dims [d, d + mask.dim()): one source per dim reading its
// nonzero coordinates from temp memory.
Error add_mask(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& mask, size_t d,
               PutPlan* p) {
  const size_t k = mask.dim();
  ETR_RETURN_IF_ERROR(check_default_layout(op, "mask", mask));
  for (size_t j = 0; j < k; ++j) {
    ETR_CHECK_OR_FAIL(mask.size(j) == self.size(d + j), Error::InvalidArgument,
                      "%s: mask %s does not match self %s at dim %zu", op, ShapeText(mask).c_str(),
                      ShapeText(self).c_str(), d + j);
  }
  const uint8_t* m = static_cast<const uint8_t*>(mask.const_data());
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
    PutSource& s = p->src[p->count++];
    s.dim = d + j;
    s.data = coords == nullptr ? nullptr : coords + j;
    s.rank = 1;
    s.sizes[0] = n;
    s.strides[0] = static_cast<int64_t>(k);
  }
  return Error::Ok;
}

Error add_index(const char* op, const Tensor& self, const Tensor& t, size_t d, PutPlan* p) {
  ETR_RETURN_IF_ERROR(check_indices(op, t, self.size(d), true));
  PutSource& s = p->src[p->count++];
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

// Broadcasts the source shapes (right-aligned) into p->bsizes.
Error broadcast(const char* op, PutPlan* p) {
  for (size_t i = 0; i < p->count; ++i)
    p->brank = p->brank > p->src[i].rank ? p->brank : p->src[i].rank;
  for (size_t j = 0; j < p->brank; ++j) p->bsizes[j] = 1;
  for (size_t i = 0; i < p->count; ++i) {
    PutSource& s = p->src[i];
    const size_t lead = p->brank - s.rank;
    for (size_t j = 0; j < s.rank; ++j) {
      int64_t& b = p->bsizes[lead + j];
      ETR_CHECK_OR_FAIL(s.sizes[j] == b || s.sizes[j] == 1 || b == 1, Error::InvalidArgument,
                        "%s: index shapes cannot be broadcast together", op);
      if (b == 1) b = s.sizes[j];
    }
  }
  for (size_t i = 0; i < p->count; ++i) {
    PutSource& s = p->src[i];
    const size_t lead = p->brank - s.rank;
    for (size_t j = 0; j < p->brank; ++j) {
      s.bstrides[j] = (j < lead || s.sizes[j - lead] == 1) ? 0 : s.strides[j - lead];
    }
  }
  return Error::Ok;
}

Error build_plan(KernelContext& ctx, const char* op, const Tensor& self, OptionalTensorList indices,
                 PutPlan* p) {
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
    const size_t k = is_mask(*t) ? t->dim() : 1;
    ETR_RETURN_IF_ERROR(is_mask(*t) ? add_mask(ctx, op, self, *t, d, p)
                                    : add_index(op, self, *t, d, p));
    for (size_t j = 0; j < k; ++j) indexed[d + j] = true;
    d += k;
  }
  ETR_RETURN_IF_ERROR(broadcast(op, p));
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

// The result size at result dim r.
int64_t result_size(const PutPlan& p, const Tensor& self, size_t r) {
  if (r < p.num_pre) return self.size(p.pre[r]);
  if (r < p.num_pre + p.brank) return p.bsizes[r - p.num_pre];
  return self.size(p.post[r - p.num_pre - p.brank]);
}

// values broadcast to the result shape: its strides over the result dims.
Error values_strides(const char* op, const PutPlan& p, const Tensor& self, const Tensor& values,
                     int64_t* strides) {
  const size_t rank = p.rank();
  ETR_CHECK_OR_FAIL(values.dim() <= rank, Error::InvalidArgument,
                    "%s: values %s has more dims than the indexed result (%zu)", op,
                    ShapeText(values).c_str(), rank);
  const size_t lead = rank - values.dim();
  for (size_t r = 0; r < rank; ++r) {
    strides[r] = 0;
    if (r < lead || values.size(r - lead) == 1) continue;
    ETR_CHECK_OR_FAIL(values.size(r - lead) == result_size(p, self, r), Error::InvalidArgument,
                      "%s: values %s cannot be broadcast to the indexed shape", op,
                      ShapeText(values).c_str());
    strides[r] = values.stride(r - lead);
  }
  return Error::Ok;
}

// Calls fn(self_offset, values_offset) for every indexed position.
template <typename Fn>
void for_each_position(const PutPlan& p, const Tensor& self, const int64_t* vstrides, Fn&& fn) {
  const size_t rank = p.rank();
  int64_t sizes[kTensorMaxDim];
  for (size_t r = 0; r < rank; ++r) {
    sizes[r] = result_size(p, self, r);
    if (sizes[r] == 0) return;
  }
  int64_t c[kTensorMaxDim] = {};
  while (true) {
    int64_t so = 0, vo = 0;
    for (size_t r = 0; r < rank; ++r) vo += c[r] * vstrides[r];
    for (size_t i = 0; i < p.num_pre; ++i) so += c[i] * self.stride(p.pre[i]);
    for (size_t i = 0; i < p.num_post; ++i) {
      so += c[p.num_pre + p.brank + i] * self.stride(p.post[i]);
    }
    for (size_t i = 0; i < p.count; ++i) {
      const PutSource& s = p.src[i];
      int64_t at = 0;
      for (size_t j = 0; j < p.brank; ++j) at += c[p.num_pre + j] * s.bstrides[j];
      int64_t v = load_index(s.data, s.type, at);
      if (v < 0) v += self.size(s.dim);
      so += v * self.stride(s.dim);
    }
    fn(so, vo);
    size_t r = rank;
    while (r > 0 && ++c[r - 1] == sizes[r - 1]) c[--r] = 0;
    if (r == 0) return;
  }
}

// Load: index dtypes, how many dims are indexed, values' dtype.
Error check_put_args(const char* op, const Tensor& self, OptionalTensorList indices,
                     const Tensor& values, bool accumulate) {
  size_t d = 0, sources = 0, brank = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor* t = indices[i];
    const size_t k = t != nullptr && is_mask(*t) ? t->dim() : 1;
    ETR_CHECK_OR_FAIL(d + k <= self.dim(), Error::InvalidArgument,
                      "%s: too many indices for a %zu-d tensor", op, self.dim());
    if (t != nullptr) {
      ETR_CHECK_OR_FAIL(!is_mask(*t) || k > 0, Error::NotSupported,
                        "%s: 0-d masks are not supported", op);
      if (!is_mask(*t)) ETR_RETURN_IF_ERROR(check_index_dtype(op, *t));
      sources += k;
      const size_t r = is_mask(*t) ? 1 : t->dim();
      brank = brank > r ? brank : r;
    }
    d += k;
  }
  ETR_CHECK_OR_FAIL(sources > 0, Error::InvalidArgument,
                    "%s: at least one index tensor is required", op);
  ETR_CHECK_OR_FAIL(self.dim() - sources + brank <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: the indexed result has too many dims", op);
  ETR_RETURN_IF_ERROR(check_dtype(op, "values", values, self.dtype()));
  if (accumulate) ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kRealAndBoolTypes));
  return Error::Ok;
}

// Run: writes values into `dst` (which already holds self's values).
Error put(KernelContext& ctx, const char* op, Tensor& dst, OptionalTensorList indices,
          const Tensor& values, bool accumulate) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, dst.dtype(), {&values}));
  PutPlan p;
  ETR_RETURN_IF_ERROR(build_plan(ctx, op, dst, indices, &p));
  int64_t vstrides[kTensorMaxDim];
  ETR_RETURN_IF_ERROR(values_strides(op, p, dst, values, vstrides));
  if (!accumulate) {
    const int64_t elem = static_cast<int64_t>(dst.element_size());
    char* out = static_cast<char*>(dst.mutable_data());
    const char* in = static_cast<const char*>(values.const_data());
    for_each_position(p, dst, vstrides, [&](int64_t so, int64_t vo) {
      std::memcpy(out + so * elem, in + vo * elem, static_cast<size_t>(elem));
    });
    return Error::Ok;
  }
  const bool known = dispatch_real_and_bool(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = dst.data_ptr<T>();
    const T* in = values.const_data_ptr<T>();
    for_each_position(p, dst, vstrides,
                      [&](int64_t so, int64_t vo) { out[so] = add_wrap(out[so], in[vo]); });
  });
  return check_dispatched(op, known, dst.dtype());
}

}  // namespace

Error index_put_prepare(KernelPrepareContext& ctx, const Tensor& self, OptionalTensorList indices,
                        const Tensor& values, bool accumulate, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_put_args(op, self, indices, values, accumulate));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
}

void index_put_out(KernelContext& ctx, const Tensor& self, OptionalTensorList indices,
                   const Tensor& values, bool accumulate, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, self.sizes()));
  if (out.const_data() != self.const_data()) copy_same_shape(out, self);
  ETR_KERNEL_TRY(ctx, put(ctx, op, out, indices, values, accumulate));
}

Error index_put_inplace_prepare(KernelPrepareContext& ctx, Tensor& self, OptionalTensorList indices,
                                const Tensor& values, bool accumulate) {
  return check_put_args(ctx.op_name(), self, indices, values, accumulate);
}

void index_put_inplace(KernelContext& ctx, Tensor& self, OptionalTensorList indices,
                       const Tensor& values, bool accumulate) {
  ETR_KERNEL_TRY(ctx, put(ctx, ctx.op_name(), self, indices, values, accumulate));
}

}  // namespace etr
