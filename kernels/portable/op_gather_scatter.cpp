// aten::gather.out, aten::scatter.src_out, aten::scatter.value_out and
// aten::scatter_add.out: element-wise gathers and scatters along one dim at
// the (Long or Int) positions of an index tensor of self's rank. Indices are
// not wrapped (PyTorch refuses negative ones); every index is range-checked
// before anything is written. gather and scatter move element bytes (any
// dtype); scatter_add adds in self's dtype (bool: or, integers wrap). A 0-d
// tensor counts as one element of rank 1, as in PyTorch. self, src and out
// may have any dim order; the index is in the default dim order.
#include <cstring>

#include "kernels/portable/indexing.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/index_util.h"

namespace etr {
namespace {

// Rank, size and stride of t with a 0-d tensor seen as [1].
size_t rank1(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }
int64_t size1(const Tensor& t, size_t k) { return t.dim() == 0 ? 1 : t.size(k); }
int64_t stride1(const Tensor& t, size_t k) { return t.dim() == 0 ? 1 : t.stride(k); }

// Load: dim in range for self, index of self's rank with a Long/Int dtype,
// out of self's dtype and of `out_rank` dims.
Error check_common(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                   const Tensor& out, size_t out_rank) {
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  ETR_RETURN_IF_ERROR(check_index_dtype(op, index));
  ETR_CHECK_OR_FAIL(rank1(index) == rank1(self), Error::InvalidArgument,
                    "%s: index has %zu dims, self %zu; they must match", op, index.dim(),
                    self.dim());
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, out_rank);
}

// Run: index.size(k) <= bound.size(k) for every k (k != d unless all_dims).
Error check_index_fits(const char* op, const Tensor& index, const Tensor& bound, const char* what,
                       size_t d, bool all_dims) {
  for (size_t k = 0; k < rank1(index); ++k) {
    if (k == d && !all_dims) continue;
    ETR_CHECK_OR_FAIL(size1(index, k) <= size1(bound, k), Error::InvalidArgument,
                      "%s: index %s is larger than %s %s at dim %zu", op, ShapeText(index).c_str(),
                      what, ShapeText(bound).c_str(), k);
  }
  return Error::Ok;
}

// For every element of `index` (default layout, values checked): calls
// fn(indexed_offset, other_offset), where indexed_offset addresses
// `indexed` at the index's coordinates with coordinate d replaced by the
// index value, and other_offset addresses `other` at the coordinates.
// Offsets are in elements.
template <typename Fn>
void for_each_index(const Tensor& index, size_t d, const Tensor& indexed, const Tensor& other,
                    Fn&& fn) {
  const size_t r = rank1(index);
  int64_t coord[kTensorMaxDim] = {};
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t a = 0, b = 0;
    for (size_t k = 0; k < r; ++k) {
      if (k != d) a += coord[k] * stride1(indexed, k);
      b += coord[k] * stride1(other, k);
    }
    a += load_index(index.const_data(), index.dtype(), i) * stride1(indexed, d);
    fn(a, b);
    for (size_t k = r; k-- > 0;) {
      if (++coord[k] < size1(index, k)) break;
      coord[k] = 0;
    }
  }
}

// out <- self (same sizes, same dtype), unless they share memory.
void copy_self(const Tensor& self, Tensor& out) {
  if (out.const_data() != self.const_data()) copy_same_shape(out, self);
}

// Everything scatter's run checks before writing: sizes, index values,
// operand dtypes; then out gets self's sizes and values.
Error scatter_setup(const char* op, const Tensor& self, size_t d, const Tensor& index,
                    const Tensor* src, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {src, &out}));
  ETR_RETURN_IF_ERROR(check_index_fits(op, index, self, "self", d, false));
  if (src != nullptr) ETR_RETURN_IF_ERROR(check_index_fits(op, index, *src, "src", d, true));
  ETR_RETURN_IF_ERROR(check_indices(op, index, size1(self, d), false));
  ETR_RETURN_IF_ERROR(resize_output(op, out, self.sizes()));
  copy_self(self, out);
  return Error::Ok;
}

Error check_src(const char* op, const Tensor& self, const Tensor& index, const Tensor& src) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "src", src, self.dtype()));
  ETR_CHECK_OR_FAIL(rank1(src) == rank1(index), Error::InvalidArgument,
                    "%s: src has %zu dims, index %zu; they must match", op, src.dim(), index.dim());
  return Error::Ok;
}

}  // namespace

Error gather_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                     const Tensor& index, bool /*sparse_grad*/, Tensor& out) {
  const char* op = ctx.op_name();
  return check_common(op, self, dim, index, out, index.dim());
}

void gather_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                bool /*sparse_grad*/, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, check_index_fits(op, index, self, "self", d, false));
  ETR_KERNEL_TRY(ctx, check_indices(op, index, size1(self, d), false));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, index.sizes()));
  const size_t elem = self.element_size();
  const char* src = static_cast<const char*>(self.const_data());
  char* dst = static_cast<char*>(out.mutable_data());
  if (out.numel() == 0) return;
  for_each_index(index, d, self, out, [&](int64_t a, int64_t b) {
    std::memcpy(dst + b * static_cast<int64_t>(elem), src + a * static_cast<int64_t>(elem), elem);
  });
}

Error scatter_src_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Tensor& src, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_common(op, self, dim, index, out, self.dim()));
  return check_src(op, self, index, src);
}

void scatter_src_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, Tensor& out) {
  const size_t d = wrapped_dim(dim, self.dim());
  ETR_KERNEL_TRY(ctx, scatter_setup(ctx.op_name(), self, d, index, &src, out));
  const size_t elem = self.element_size();
  const char* from = static_cast<const char*>(src.const_data());
  char* dst = static_cast<char*>(out.mutable_data());
  for_each_index(index, d, out, src, [&](int64_t a, int64_t b) {
    std::memcpy(dst + a * static_cast<int64_t>(elem), from + b * static_cast<int64_t>(elem), elem);
  });
}

Error scatter_value_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                            const Tensor& index, Scalar /*value*/, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kRealAndBoolTypes));
  return check_common(op, self, dim, index, out, self.dim());
}

void scatter_value_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                       Scalar value, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  ETR_KERNEL_TRY(ctx, scatter_setup(op, self, d, index, nullptr, out));
  const bool known = dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = scalar_to<T>(value);
    T* dst = out.data_ptr<T>();
    for_each_index(index, d, out, index, [&](int64_t a, int64_t) { dst[a] = v; });
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
}

Error scatter_add_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                          const Tensor& index, const Tensor& src, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", self.dtype(), kRealAndBoolTypes));
  ETR_RETURN_IF_ERROR(check_common(op, self, dim, index, out, self.dim()));
  return check_src(op, self, index, src);
}

void scatter_add_out(KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  ETR_KERNEL_TRY(ctx, scatter_setup(op, self, d, index, &src, out));
  const bool known = dispatch_real_and_bool(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* from = src.const_data_ptr<T>();
    T* dst = out.data_ptr<T>();
    for_each_index(index, d, out, src, [&](int64_t a, int64_t b) {
      dst[a] = add_wrap(read_elem(dst, a), read_elem(from, b));
    });
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
}

}  // namespace etr
