// Creation ops: full, full_like, zeros, ones, scalar_tensor, fill. Out is
// resized to the requested shape (same rank) and every element set to the
// value converted to out's dtype (convert<T>: floating values truncate into
// integer outs as PyTorch on x86-64). full_like's memory_format is checked
// at load; the layout comes from out's dim order.
#include "kernels/portable/copy.h"
#include "kernels/portable/creation.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Resizes out to `size` and fills it with `value`.
template <typename V>
void fill_sized(KernelContext& ctx, IntArrayRef size, V value, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, size));
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), fill_tensor(out, value), out.dtype()));
}

void fill_scalar(KernelContext& ctx, IntArrayRef size, const Scalar& value, Tensor& out) {
  if (value.is_floating()) {
    fill_sized(ctx, size, value.to_double(), out);
  } else if (value.is_bool()) {
    fill_sized(ctx, size, value.value().to_bool(), out);
  } else {
    fill_sized(ctx, size, value.to_int(), out);
  }
}

// fill_scalar with the shape of `like`.
void fill_like(KernelContext& ctx, const Tensor& like, const Scalar& value, Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d < like.dim(); ++d) sizes[d] = like.size(d);
  fill_scalar(ctx, IntArrayRef(sizes, like.dim()), value, out);
}

}  // namespace

// ---- Prepare: out has the rank of the requested shape (the sizes
// themselves may be symbolic and are checked by resize_output in run()).

Error full_prepare(KernelPrepareContext& ctx, IntArrayRef size, Scalar, Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, size.size());
}

Error full_like_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar,
                        std::optional<int64_t> memory_format, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_memory_format(ctx.op_name(), memory_format));
  return check_rank(ctx.op_name(), "out", out, self.dim());
}

Error sized_prepare(KernelPrepareContext& ctx, IntArrayRef size, Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, size.size());
}

Error scalar_tensor_prepare(KernelPrepareContext& ctx, Scalar, Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, 0);
}

Error fill_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar, Tensor& out) {
  return check_rank(ctx.op_name(), "out", out, self.dim());
}

// ---- Run

void full_out(KernelContext& ctx, IntArrayRef size, Scalar fill_value, Tensor& out) {
  fill_scalar(ctx, size, fill_value, out);
}

void full_like_out(KernelContext& ctx, const Tensor& self, Scalar fill_value,
                   std::optional<int64_t> /*memory_format*/, Tensor& out) {
  // The layout comes from out's dim order.
  fill_like(ctx, self, fill_value, out);
}

void zeros_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  fill_sized(ctx, size, int64_t{0}, out);
}

void ones_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  fill_sized(ctx, size, int64_t{1}, out);
}

void scalar_tensor_out(KernelContext& ctx, Scalar s, Tensor& out) {
  fill_scalar(ctx, IntArrayRef(), s, out);
}

void fill_scalar_out(KernelContext& ctx, const Tensor& self, Scalar value, Tensor& out) {
  fill_like(ctx, self, value, out);
}

}  // namespace etr
