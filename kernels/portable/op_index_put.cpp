// aten::index_put.out and aten::index_put_: self[indices] = values (or +=
// with accumulate), the write-side of index.Tensor. Indices are Long/Int
// tensors (negative ones count from the end) or Bool/Byte masks (a mask
// stands for its nonzero coordinates), broadcast together; the indexed
// positions form a result shape laid out as in index.Tensor (adjacent index
// dims keep their place, separated ones move to the front), and values is
// broadcast to it. Every index is range-checked before anything is written.
// Without accumulate element bytes are moved (any dtype; a repeated index
// keeps the last value); accumulate adds in self's dtype (real, bool, Half
// and BFloat16), one position after another in the result's row-major
// order. Half and BFloat16 add as PyTorch does on CPU: both operands widened
// to float, the sum rounded back after every addition (so a repeated index
// rounds once per contribution, not once at the end).
// values has self's dtype, as torch requires; index tensors and masks must
// be in the default dim order.
#include <cstring>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/index_util.h"
#include "runtime/core/half.h"

namespace etr {
namespace {

// index_put refuses a mask that is not in the default dim order.
Error check_mask_layout(const char* op, const Tensor&, const Tensor& mask, size_t) {
  return check_default_layout(op, "mask", mask);
}

// values broadcast to the result shape: its strides over the result dims.
Error values_strides(const char* op, const IndexPlan& p, const Tensor& self, const Tensor& values,
                     int64_t* strides) {
  const size_t rank = p.rank();
  ETR_CHECK_OR_FAIL(values.dim() <= rank, Error::InvalidArgument,
                    "%s: values %s has more dims than the indexed result (%zu)", op,
                    ShapeText(values).c_str(), rank);
  const size_t lead = rank - values.dim();
  for (size_t r = 0; r < rank; ++r) {
    strides[r] = 0;
    if (r < lead || values.size(r - lead) == 1) continue;
    ETR_CHECK_OR_FAIL(
        values.size(r - lead) == index_result_size(p, self, r), Error::InvalidArgument,
        "%s: values %s cannot be broadcast to the indexed shape", op, ShapeText(values).c_str());
    strides[r] = values.stride(r - lead);
  }
  return Error::Ok;
}

// Calls fn(self_offset, values_offset) for every indexed position.
template <typename Fn>
void for_each_position(const IndexPlan& p, const Tensor& self, const int64_t* vstrides, Fn&& fn) {
  const size_t rank = p.rank();
  int64_t sizes[kTensorMaxDim];
  for (size_t r = 0; r < rank; ++r) {
    sizes[r] = index_result_size(p, self, r);
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
    so += indexed_offset(p, self, c + p.num_pre);
    fn(so, vo);
    size_t r = rank;
    while (r > 0 && ++c[r - 1] == sizes[r - 1]) c[--r] = 0;
    if (r == 0) return;
  }
}

// Accumulates values into a Half or BFloat16 `dst` (H): each addition in
// float, rounded to H before the next one.
template <typename H>
void accumulate_16bit(const IndexPlan& p, Tensor& dst, const Tensor& values,
                      const int64_t* vstrides) {
  H* out = static_cast<H*>(dst.mutable_data());
  const H* in = static_cast<const H*>(values.const_data());
  for_each_position(p, dst, vstrides, [&](int64_t so, int64_t vo) {
    out[so] = H(static_cast<float>(out[so]) + static_cast<float>(in[vo]));
  });
}

// Load: index dtypes, how many dims are indexed, values' dtype.
Error check_put_args(const char* op, const Tensor& self, OptionalTensorList indices,
                     const Tensor& values, bool accumulate) {
  size_t d = 0, sources = 0, brank = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor* t = indices[i];
    const size_t k = t != nullptr && is_index_mask(*t) ? t->dim() : 1;
    ETR_CHECK_OR_FAIL(d + k <= self.dim(), Error::InvalidArgument,
                      "%s: too many indices for a %zu-d tensor", op, self.dim());
    if (t != nullptr) {
      ETR_CHECK_OR_FAIL(!is_index_mask(*t) || k > 0, Error::NotSupported,
                        "%s: 0-d masks are not supported", op);
      if (!is_index_mask(*t)) ETR_RETURN_IF_ERROR(check_index_dtype(op, *t));
      sources += k;
      const size_t r = is_index_mask(*t) ? 1 : t->dim();
      brank = brank > r ? brank : r;
    }
    d += k;
  }
  ETR_CHECK_OR_FAIL(sources > 0, Error::InvalidArgument,
                    "%s: at least one index tensor is required", op);
  ETR_CHECK_OR_FAIL(self.dim() - sources + brank <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: the indexed result has too many dims", op);
  ETR_RETURN_IF_ERROR(check_dtype(op, "values", values, self.dtype()));
  if (accumulate) {
    ETR_RETURN_IF_ERROR(
        check_dtype_in(op, "self", self.dtype(),
                       kRealAndBoolTypes | DtypeSet::of(ScalarType::Half, ScalarType::BFloat16)));
  }
  return Error::Ok;
}

// Run: writes values into `dst` (which already holds self's values).
Error put(KernelContext& ctx, const char* op, Tensor& dst, OptionalTensorList indices,
          const Tensor& values, bool accumulate) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, dst.dtype(), {&values}));
  IndexPlan p;
  ETR_RETURN_IF_ERROR(build_index_plan(ctx, op, dst, indices, check_mask_layout, &p));
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
  if (dst.dtype() == ScalarType::Half) {
    accumulate_16bit<Half>(p, dst, values, vstrides);
    return Error::Ok;
  }
  if (dst.dtype() == ScalarType::BFloat16) {
    accumulate_16bit<BFloat16>(p, dst, values, vstrides);
    return Error::Ok;
  }
  const bool known = dispatch_real_and_bool(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = dst.data_ptr<T>();
    const T* in = values.const_data_ptr<T>();
    for_each_position(p, dst, vstrides, [&](int64_t so, int64_t vo) {
      out[so] = add_wrap(read_elem(out, so), read_elem(in, vo));
    });
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
