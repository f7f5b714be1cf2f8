// et_copy::_h2d_copy.out and et_copy::_d2h_copy.out: the host<->device
// copies the exporter inserts around device-partitioned code. This runtime
// keeps every tensor in host memory, so both are same-dtype copies of self
// into out (resized to self's shape; any dtype, any dim orders).
#include "kernels/portable/copy.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

void host_copy(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  copy_same_shape(out, self);
}

}  // namespace

Error device_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(ctx.op_name(), "out", out, self.dtype()));
  return check_rank(ctx.op_name(), "out", out, self.dim());
}

void h2d_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  host_copy(ctx, self, out);
}

void d2h_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  host_copy(ctx, self, out);
}

}  // namespace etr
