// aten::_to_copy.out and dim_order_ops::_to_dim_order_copy.out: copy self
// into out, converting to out's dtype with convert<To> (floating to integer
// as PyTorch on x86-64, see util/convert.h). The copy walks logical indices
// with each tensor's own strides, so out may use any dim order. Complex
// tensors are copied into their own dtype only (bytes moved): converting to
// or from complex is refused at load.
#include "kernels/portable/copy.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

// Ok unless self or out is complex and their dtypes differ.
Error check_complex_copy(const char* op, const Tensor& self, const Tensor& out) {
  ETR_CHECK_OR_FAIL(
      !(is_complex(self.dtype()) || is_complex(out.dtype())) || self.dtype() == out.dtype(),
      Error::NotSupported,
      "%s: converting %s to %s is not supported (complex tensors are copied to "
      "their own dtype only)",
      op, to_string(self.dtype()), to_string(out.dtype()));
  return Error::Ok;
}

void copy_cast(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ETR_KERNEL_TRY(ctx, check_complex_copy(ctx.op_name(), self, out));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  if (is_complex(self.dtype())) {
    copy_same_shape(out, self);
    return;
  }
  ETR_KERNEL_TRY(ctx, dispatch_elementwise(ctx.op_name(), out.dtype(), [&](auto tag) {
                   using OT = typename decltype(tag)::type;
                   return apply_elementwise(
                       out, [](OT x) { return x; }, read_as<OT>(self));
                 }));
}

}  // namespace

Error to_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, bool,
                      std::optional<int64_t> memory_format, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_complex_copy(ctx.op_name(), self, out));
  return check_memory_format(ctx.op_name(), memory_format);
}

void to_copy_out(KernelContext& ctx, const Tensor& self, bool /*non_blocking*/,
                 std::optional<int64_t> /*memory_format*/, Tensor& out) {
  copy_cast(ctx, self, out);
}

Error to_dim_order_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, bool,
                                std::optional<IntArrayRef> dim_order, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_complex_copy(ctx.op_name(), self, out));
  return check_dim_order(ctx.op_name(), dim_order, out);
}

void to_dim_order_copy_out(KernelContext& ctx, const Tensor& self, bool /*non_blocking*/,
                           std::optional<IntArrayRef> /*dim_order*/, Tensor& out) {
  copy_cast(ctx, self, out);
}

}  // namespace etr
