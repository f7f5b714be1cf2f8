// Creation ops: full, full_like, zeros, ones, scalar_tensor, fill (Scalar
// and 0-d Tensor value). Out is resized to the requested shape (same rank)
// and every element set to the value converted to out's dtype (convert<T>:
// floating values truncate into integer outs as PyTorch on x86-64).
// full_like's memory_format is checked at load; the layout comes from out's
// dim order.
#include <cstdint>
#include <cstring>
#include <type_traits>

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

// PyTorch refuses an out of another dtype (fill.Scalar_out as fill.Tensor_out).
Error fill_scalar_prepare(KernelPrepareContext& ctx, const Tensor& self, Scalar, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, self.dtype()));
  return check_rank(ctx.op_name(), "out", out, self.dim());
}

// PyTorch refuses an out of another dtype and a value that is not 0-d.
Error fill_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& value,
                          Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(value.dim() == 0, Error::InvalidArgument,
                    "%s: value must be a 0-d tensor, got %zu dims", op, value.dim());
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, self.dim());
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

// The value is read in its own dtype, then converted to out's.
void fill_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor& value, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, self.sizes()));
  bool filled = false;
  const bool known = dispatch_real_and_bool(value.dtype(), [&](auto tag) {
    using V = typename decltype(tag)::type;
    V v{};
    if constexpr (std::is_same<V, bool>::value) {
      v = *static_cast<const uint8_t*>(value.const_data()) != 0;  // any nonzero byte is true
    } else {
      std::memcpy(&v, value.const_data(), sizeof(V));
    }
    filled = fill_tensor(out, v);
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, value.dtype()));
  ETR_KERNEL_TRY(ctx, check_dispatched(op, filled, out.dtype()));
}

}  // namespace etr
