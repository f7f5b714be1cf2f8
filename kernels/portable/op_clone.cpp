// aten::clone.out, dim_order_ops::_clone_dim_order.out and the plain copies
// alias_copy.out, detach_copy.out, lift_fresh_copy.out: out (of self's
// dtype and shape) <- self, element bytes moved through both tensors'
// strides, so out's dim order decides the layout.
#include "kernels/portable/copy.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// ATen MemoryFormat codes as the exporter writes them.
constexpr int64_t kMemoryFormatContiguous = 0;
constexpr int64_t kMemoryFormatChannelsLast3d = 3;

void plain_copy(KernelContext& ctx, const Tensor& self, Tensor& out) {
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(ctx.op_name(), self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  copy_same_shape(out, self);
}

}  // namespace

Error check_memory_format(const char* op, std::optional<int64_t> memory_format) {
  ETR_CHECK_OR_FAIL(!memory_format.has_value() || (*memory_format >= kMemoryFormatContiguous &&
                                                   *memory_format <= kMemoryFormatChannelsLast3d),
                    Error::InvalidArgument, "%s: unsupported memory_format %lld", op,
                    static_cast<long long>(memory_format.value_or(0)));
  return Error::Ok;
}

Error check_dim_order(const char* op, std::optional<IntArrayRef> dim_order, const Tensor& out) {
  if (!dim_order.has_value()) return Error::Ok;
  const IntArrayRef order = *dim_order;
  bool match = order.size() == out.dim();
  for (size_t i = 0; match && i < order.size(); ++i) {
    match = order[i] == static_cast<int64_t>(out.dim_order()[i]);
  }
  ETR_CHECK_OR_FAIL(match, Error::InvalidArgument,
                    "%s: requested dim_order %s does not match out's dim order", op,
                    ShapeText(order).c_str());
  return Error::Ok;
}

Error same_dtype_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return check_dtype(ctx.op_name(), "out", out, self.dtype());
}

Error clone_prepare(KernelPrepareContext& ctx, const Tensor& self,
                    std::optional<int64_t> memory_format, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_memory_format(ctx.op_name(), memory_format));
  return check_dtype(ctx.op_name(), "out", out, self.dtype());
}

void clone_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> /*memory_format*/,
               Tensor& out) {
  plain_copy(ctx, self, out);
}

Error clone_dim_order_prepare(KernelPrepareContext& ctx, const Tensor& self, bool,
                              std::optional<IntArrayRef> dim_order, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dim_order(ctx.op_name(), dim_order, out));
  return check_dtype(ctx.op_name(), "out", out, self.dtype());
}

void clone_dim_order_out(KernelContext& ctx, const Tensor& self, bool /*non_blocking*/,
                         std::optional<IntArrayRef> /*dim_order*/, Tensor& out) {
  plain_copy(ctx, self, out);
}

void alias_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  plain_copy(ctx, self, out);
}

void detach_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  plain_copy(ctx, self, out);
}

void lift_fresh_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  plain_copy(ctx, self, out);
}

}  // namespace etr
