// Joining copies: aten::cat.out and aten::stack.out. Every input is copied
// into its sub-view of out through a CopyPlan, so any dim order works.
// Inputs of out's dtype are copied bytewise (any dtype); others are
// converted with convert<To> (real types and bool), as PyTorch's type
// promotion into `out` does. Prepare checks the list, ranks, dim and dtypes;
// run() checks sizes (which also decide which legacy empty inputs cat skips).
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// PyTorch skips legacy empty 1-D tensors (shape [0]) in cat.
bool is_skipped(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// Copies `in` into out with its dims mapped to out dims `out_dim[d]`, starting
// at `offset` along out dim `along`. False when the dtypes do not convert.
bool copy_into(const Tensor& in, Tensor& out, const size_t* out_dim, size_t along, int64_t offset) {
  if (in.numel() == 0) return true;
  CopyPlan plan;
  for (size_t d = 0; d < in.dim(); ++d) plan.add(in.size(d), out.stride(out_dim[d]), in.stride(d));
  char* dst = static_cast<char*>(out.mutable_data()) +
              offset * out.stride(along) * static_cast<int64_t>(out.element_size());
  return run_convert_copy(plan, dst, out.dtype(), in.const_data(), in.dtype());
}

// Tensor i can be written into out: the same dtype, or both real or bool.
Error check_input_dtype(const char* op, size_t i, const Tensor& t, const Tensor& out) {
  const bool convertible =
      kRealAndBoolTypes.contains(t.dtype()) && kRealAndBoolTypes.contains(out.dtype());
  ETR_CHECK_OR_FAIL(t.dtype() == out.dtype() || convertible, Error::InvalidType,
                    "%s: tensor %zu has dtype %s, cannot be written to out dtype %s", op, i,
                    to_string(t.dtype()), to_string(out.dtype()));
  return Error::Ok;
}

// The rank cat works in: that of the first input that is not 1-D (1-D
// inputs may be skipped legacy empties), else 1.
size_t cat_rank(TensorList tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].dim() != 1) return tensors[i].dim();
  }
  return 1;
}

Error check_nonempty_list(const char* op, TensorList tensors) {
  ETR_CHECK_OR_FAIL(tensors.size() > 0, Error::InvalidArgument,
                    "%s: expected a non-empty list of tensors", op);
  return Error::Ok;
}

// Checks every non-skipped input against `ref` (sizes equal except along d)
// and writes the concatenated sizes.
Error cat_sizes(const char* op, TensorList tensors, const Tensor& ref, size_t d, int64_t* sizes) {
  for (size_t k = 0; k < ref.dim(); ++k) sizes[k] = ref.size(k);
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_skipped(t)) continue;
    bool match = t.dim() == ref.dim();
    for (size_t k = 0; match && k < t.dim(); ++k) match = k == d || t.size(k) == ref.size(k);
    ETR_CHECK_OR_FAIL(match, Error::InvalidArgument,
                      "%s: sizes of tensors must match except in dim %zu: %s vs %s (tensor %zu)",
                      op, d, ShapeText(ref).c_str(), ShapeText(t).c_str(), i);
    sizes[d] += t.size(d);
  }
  return Error::Ok;
}

}  // namespace

Error cat_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_nonempty_list(op, tensors));
  const size_t rank = cat_rank(tensors);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    ETR_CHECK_OR_FAIL(t.dim() > 0, Error::InvalidArgument,
                      "%s: zero-dimensional tensors cannot be concatenated (tensor %zu)", op, i);
    ETR_CHECK_OR_FAIL(t.dim() == 1 || t.dim() == rank, Error::InvalidArgument,
                      "%s: tensor %zu has %zu dims, expected %zu", op, i, t.dim(), rank);
    ETR_RETURN_IF_ERROR(check_input_dtype(op, i, t, out));
  }
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, rank, &d));
  return check_rank(op, "out", out, rank);
}

Error stack_prepare(KernelPrepareContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_nonempty_list(op, tensors));
  const size_t r = tensors[0].dim();
  ETR_CHECK_OR_FAIL(r < kTensorMaxDim, Error::InvalidArgument,
                    "%s: result would exceed the rank limit", op);
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, r + 1, &d));
  for (size_t i = 0; i < tensors.size(); ++i) {
    ETR_CHECK_OR_FAIL(tensors[i].dim() == r, Error::InvalidArgument,
                      "%s: tensor %zu has %zu dims, expected %zu", op, i, tensors[i].dim(), r);
    ETR_RETURN_IF_ERROR(check_input_dtype(op, i, tensors[i], out));
  }
  return check_rank(op, "out", out, r + 1);
}

void cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size() && ref == nullptr; ++i) {
    if (!is_skipped(tensors[i])) ref = &tensors[i];
  }
  if (ref == nullptr) {  // every input is a legacy empty tensor: result is [0]
    const int64_t zero[1] = {0};
    ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(zero, 1)));
    return;
  }
  const size_t rank = cat_rank(tensors);
  // A 1-D input of nonzero size among inputs of higher rank.
  ETR_KERNEL_CHECK(ctx, ref->dim() == rank, Error::InvalidArgument,
                   "%s: sizes of tensors must match: %s is not a legacy empty tensor", op,
                   ShapeText(*ref).c_str());
  const size_t d = wrapped_dim(dim, rank);
  int64_t sizes[kTensorMaxDim];
  ETR_KERNEL_TRY(ctx, cat_sizes(op, tensors, *ref, d, sizes));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, ref->dim())));
  size_t identity[kTensorMaxDim];
  for (size_t k = 0; k < kTensorMaxDim; ++k) identity[k] = k;
  int64_t offset = 0;
  bool copied = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_skipped(t)) continue;
    copied = copy_into(t, out, identity, d, offset) && copied;
    offset += t.size(d);
  }
  ETR_KERNEL_TRY(ctx, check_dispatched(op, copied, out.dtype()));
}

void stack_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  const Tensor& ref = tensors[0];
  const size_t r = ref.dim();
  const size_t d = wrapped_dim(dim, r + 1);
  for (size_t i = 0; i < tensors.size(); ++i) {
    ETR_KERNEL_TRY(ctx, check_same_shape(op, "entry 0", ref, "another entry", tensors[i]));
  }
  int64_t sizes[kTensorMaxDim];
  size_t out_dim[kTensorMaxDim];
  for (size_t k = 0, j = 0; k <= r; ++k) {
    if (k == d) {
      sizes[k] = static_cast<int64_t>(tensors.size());
    } else {
      out_dim[j] = k;
      sizes[k] = ref.size(j++);
    }
  }
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, r + 1)));
  bool copied = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    copied = copy_into(tensors[i], out, out_dim, d, static_cast<int64_t>(i)) && copied;
  }
  ETR_KERNEL_TRY(ctx, check_dispatched(op, copied, out.dtype()));
}

}  // namespace etr
