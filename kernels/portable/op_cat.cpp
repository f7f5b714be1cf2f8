// Joining copies: aten::cat.out and aten::stack.out.
// Every input is copied into its sub-view of out through a CopyPlan, so any
// dim order works. Inputs whose dtype differs from out are converted
// (real types and bool), as PyTorch's type promotion into `out` does.
#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// PyTorch skips legacy empty 1-D tensors (shape [0]) in cat.
bool is_skipped(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// Copies `in` into out with its dims mapped to out dims `out_dim[d]`, starting
// at `offset` along out dim `along`.
bool copy_into(const Tensor& in, Tensor& out, const size_t* out_dim, size_t along, int64_t offset) {
  if (in.numel() == 0) return true;
  CopyPlan plan;
  for (size_t d = 0; d < in.dim(); ++d) plan.add(in.size(d), out.stride(out_dim[d]), in.stride(d));
  char* dst = static_cast<char*>(out.mutable_data()) +
              offset * out.stride(along) * static_cast<int64_t>(out.element_size());
  return run_convert_copy(plan, dst, out.dtype(), in.const_data(), in.dtype());
}

bool check_input_dtype(KernelContext& ctx, const char* op, size_t i, const Tensor& t,
                       const Tensor& out) {
  const bool same = t.dtype() == out.dtype() && is_valid(t.dtype());
  bool convertible = false;
  dispatch_real_and_bool(t.dtype(), [&](auto) {
    dispatch_real_and_bool(out.dtype(), [&](auto) { convertible = true; });
  });
  ETR_KERNEL_CHECK_OR_FALSE(ctx, same || convertible, Error::InvalidType,
                            "%s: tensor %zu has dtype %s, cannot be written to out dtype %s", op, i,
                            to_string(t.dtype()), to_string(out.dtype()));
  return true;
}

}  // namespace

void cat_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  constexpr const char* kOp = "aten::cat.out";
  ETR_KERNEL_CHECK(ctx, tensors.size() > 0, Error::InvalidArgument,
                   "%s: expected a non-empty list of tensors", kOp);
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size() && ref == nullptr; ++i) {
    if (!is_skipped(tensors[i])) ref = &tensors[i];
  }
  if (ref == nullptr) {  // every input is a legacy empty tensor: result is [0]
    const int64_t zero[1] = {0};
    if (!check_input_dtype(ctx, kOp, 0, tensors[0], out)) return;
    resize_out(ctx, kOp, out, zero, 1);
    return;
  }
  size_t d = 0;
  ETR_KERNEL_CHECK(ctx, ref->dim() > 0, Error::InvalidArgument,
                   "%s: zero-dimensional tensors cannot be concatenated", kOp);
  if (!wrap_dim_checked(ctx, kOp, dim, ref->dim(), &d)) return;
  int64_t sizes[kTensorMaxDim];
  for (size_t k = 0; k < ref->dim(); ++k) sizes[k] = ref->size(k);
  sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_skipped(t)) continue;
    bool match = t.dim() == ref->dim();
    for (size_t k = 0; match && k < t.dim(); ++k) match = k == d || t.size(k) == ref->size(k);
    ETR_KERNEL_CHECK(ctx, match, Error::InvalidArgument,
                     "%s: sizes of tensors must match except in dim %zu: %s vs %s (tensor %zu)",
                     kOp, d, shape_str(*ref).c_str(), shape_str(t).c_str(), i);
    if (!check_input_dtype(ctx, kOp, i, t, out)) return;
    sizes[d] += t.size(d);
  }
  if (!resize_out(ctx, kOp, out, sizes, ref->dim())) return;
  size_t identity[kTensorMaxDim];
  for (size_t k = 0; k < kTensorMaxDim; ++k) identity[k] = k;
  int64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_skipped(t)) continue;
    copy_into(t, out, identity, d, offset);
    offset += t.size(d);
  }
}

void stack_out(KernelContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  constexpr const char* kOp = "aten::stack.out";
  ETR_KERNEL_CHECK(ctx, tensors.size() > 0, Error::InvalidArgument,
                   "%s: expected a non-empty list of tensors", kOp);
  const Tensor& ref = tensors[0];
  const size_t r = ref.dim();
  ETR_KERNEL_CHECK(ctx, r < kTensorMaxDim, Error::InvalidArgument,
                   "%s: result would exceed the rank limit", kOp);
  size_t d = 0;
  if (!wrap_dim_checked(ctx, kOp, dim, r + 1, &d)) return;
  for (size_t i = 0; i < tensors.size(); ++i) {
    ETR_KERNEL_CHECK(ctx, same_shape(tensors[i], ref), Error::InvalidArgument,
                     "%s: stack expects each tensor to be equal size, got %s at entry 0 and %s "
                     "at entry %zu",
                     kOp, shape_str(ref).c_str(), shape_str(tensors[i]).c_str(), i);
    if (!check_input_dtype(ctx, kOp, i, tensors[i], out)) return;
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
  if (!resize_out(ctx, kOp, out, sizes, r + 1)) return;
  for (size_t i = 0; i < tensors.size(); ++i) {
    copy_into(tensors[i], out, out_dim, d, static_cast<int64_t>(i));
  }
}

}  // namespace etr
