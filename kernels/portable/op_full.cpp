// Creation ops: full, full_like, zeros, ones, scalar_tensor, fill. The value
// is converted to out's dtype (floating values truncate into integer outs).
#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Resizes out to `size` (same rank) and fills it with `value`.
template <typename V>
void fill_sized(KernelContext& ctx, const char* op, IntArrayRef size, V value, Tensor& out) {
  if (!kernel_ok(ctx, check_dtype(op, "out", out))) return;
  ETR_KERNEL_CHECK(ctx, size.size() == out.dim(), Error::InvalidArgument,
                   "%s: size %s has rank %zu but out has rank %zu", op,
                   ShapeText(size).c_str(), size.size(), out.dim());
  const Error e = resize_tensor(out, size);
  ETR_KERNEL_CHECK(ctx, e == Error::Ok, e, "%s: cannot resize out from %s to %s", op,
                   ShapeText(out.sizes()).c_str(), ShapeText(size).c_str());
  fill_tensor(out, value);
}

void fill_scalar(KernelContext& ctx, const char* op, IntArrayRef size, const Scalar& value,
                 Tensor& out) {
  if (value.is_floating()) {
    fill_sized(ctx, op, size, value.to_double(), out);
  } else if (value.is_bool()) {
    fill_sized(ctx, op, size, value.value().to_bool(), out);
  } else {
    fill_sized(ctx, op, size, value.to_int(), out);
  }
}

// fill_scalar with the shape of `like`.
void fill_like(KernelContext& ctx, const char* op, const Tensor& like, const Scalar& value,
               Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d < like.dim(); ++d) sizes[d] = like.size(d);
  fill_scalar(ctx, op, IntArrayRef(sizes, like.dim()), value, out);
}

}  // namespace

void full_out(KernelContext& ctx, IntArrayRef size, Scalar fill_value, Tensor& out) {
  fill_scalar(ctx, "aten::full.out", size, fill_value, out);
}

void full_like_out(KernelContext& ctx, const Tensor& self, Scalar fill_value,
                   std::optional<int64_t> memory_format, Tensor& out) {
  (void)memory_format;  // the layout comes from out's dim order
  fill_like(ctx, "aten::full_like.out", self, fill_value, out);
}

void zeros_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  fill_sized(ctx, "aten::zeros.out", size, int64_t{0}, out);
}

void ones_out(KernelContext& ctx, IntArrayRef size, Tensor& out) {
  fill_sized(ctx, "aten::ones.out", size, int64_t{1}, out);
}

void scalar_tensor_out(KernelContext& ctx, Scalar s, Tensor& out) {
  fill_scalar(ctx, "aten::scalar_tensor.out", IntArrayRef(), s, out);
}

void fill_scalar_out(KernelContext& ctx, const Tensor& self, Scalar value, Tensor& out) {
  fill_like(ctx, "aten::fill.Scalar_out", self, value, out);
}

}  // namespace etr
