// Whole-tensor copies: aten::clone.out, dim_order_ops::_clone_dim_order.out,
// aten::copy.out and the in-place aten::copy_.
// Each reads the source through its strides and writes through the
// destination's, so any dim order on either side works (this is how clone
// and _clone_dim_order change layout). copy/copy_ broadcast src to self's
// shape and convert its dtype (real types and bool) as PyTorch does.
#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"

namespace etr {
namespace {

// ATen MemoryFormat codes as the exporter writes them.
constexpr int64_t kMemoryFormatContiguous = 0;
constexpr int64_t kMemoryFormatChannelsLast3d = 3;

}  // namespace

void clone_out(KernelContext& ctx, const Tensor& self, std::optional<int64_t> memory_format,
               Tensor& out) {
  constexpr const char* kOp = "aten::clone.out";
  // contiguous, preserve, channels_last, channels_last_3d: out's own dim order
  // (chosen by the exporter) decides the layout.
  ETR_KERNEL_CHECK(ctx,
                   !memory_format.has_value() || (*memory_format >= kMemoryFormatContiguous &&
                                                  *memory_format <= kMemoryFormatChannelsLast3d),
                   Error::InvalidArgument, "%s: unsupported memory_format %lld", kOp,
                   static_cast<long long>(memory_format.value_or(0)));
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out_like(ctx, kOp, out, self)) return;
  copy_same_shape(out, self);
}

void clone_dim_order_out(KernelContext& ctx, const Tensor& self, bool /*non_blocking*/,
                         std::optional<IntArrayRef> dim_order, Tensor& out) {
  constexpr const char* kOp = "dim_order_ops::_clone_dim_order.out";
  if (dim_order.has_value()) {
    const IntArrayRef order = *dim_order;
    bool match = order.size() == out.dim();
    for (size_t i = 0; match && i < order.size(); ++i) {
      match = order[i] == static_cast<int64_t>(out.dim_order()[i]);
    }
    ETR_KERNEL_CHECK(ctx, match, Error::InvalidArgument,
                     "%s: requested dim_order %s does not match out's dim order", kOp,
                     shape_str(order).c_str());
  }
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out_like(ctx, kOp, out, self)) return;
  copy_same_shape(out, self);
}

namespace {

// dst (already sized) <- src broadcast to dst's shape, converted to dst's dtype.
void broadcast_copy(KernelContext& ctx, const char* op, Tensor& dst, const Tensor& src) {
  const size_t r = dst.dim();
  ETR_KERNEL_CHECK(ctx, src.dim() <= r, Error::InvalidArgument,
                   "%s: src %s cannot be broadcast to %s", op, shape_str(src).c_str(),
                   shape_str(dst).c_str());
  CopyPlan plan;
  for (size_t i = 0; i < r; ++i) {
    const size_t lead = r - src.dim();
    int64_t stride = 0;
    if (i >= lead) {
      const int64_t s = src.size(i - lead);
      ETR_KERNEL_CHECK(ctx, s == dst.size(i) || s == 1, Error::InvalidArgument,
                       "%s: src %s cannot be broadcast to %s", op, shape_str(src).c_str(),
                       shape_str(dst).c_str());
      stride = s == 1 ? 0 : src.stride(i - lead);
    }
    plan.add(dst.size(i), dst.stride(i), stride);
  }
  const bool ok =
      run_convert_copy(plan, dst.mutable_data(), dst.dtype(), src.const_data(), src.dtype());
  ETR_KERNEL_CHECK(ctx, ok, Error::InvalidType, "%s: cannot copy %s into %s", op,
                   to_string(src.dtype()), to_string(dst.dtype()));
}

}  // namespace

void copy_out(KernelContext& ctx, const Tensor& self, const Tensor& src, bool /*non_blocking*/,
              Tensor& out) {
  constexpr const char* kOp = "aten::copy.out";
  if (!check_copy_dtypes(ctx, kOp, self, out) || !resize_out_like(ctx, kOp, out, self)) return;
  broadcast_copy(ctx, kOp, out, src);
}

void copy_inplace(KernelContext& ctx, Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  broadcast_copy(ctx, "aten::copy_", self, src);
}

}  // namespace etr
