// aten::_to_copy.out and dim_order_ops::_to_dim_order_copy.out: copy self
// into out, converting to out's dtype. The copy walks logical indices with
// each tensor's own strides, so out may use any dim order.
#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

void copy_cast(KernelContext& ctx, const char* op, const Tensor& self, Tensor& out) {
  if (!kernel_ok(ctx, prepare_unary(op, self, out))) return;
  dispatch_real_and_bool(out.dtype(), [&](auto tag) {
    using OT = typename decltype(tag)::type;
    apply_elementwise(out, [](OT x) { return x; }, read_as<OT>(self));
  });
}

bool same_dim_order(IntArrayRef expected, const Tensor& t) {
  if (expected.size() != t.dim()) return false;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != static_cast<int64_t>(t.dim_order()[i])) return false;
  }
  return true;
}

}  // namespace

void to_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                 std::optional<int64_t> memory_format, Tensor& out) {
  constexpr const char* kOp = "aten::_to_copy.out";
  (void)non_blocking;  // a synchronous copy satisfies either value
  // contiguous_format (0), preserve_format (1), channels_last (2), channels_last_3d (3): the
  // layout itself comes from out's dim order.
  ETR_KERNEL_CHECK(ctx, !memory_format.has_value() || (*memory_format >= 0 && *memory_format <= 3),
                   Error::InvalidArgument, "%s: unknown memory_format %lld", kOp,
                   static_cast<long long>(memory_format.value_or(0)));
  copy_cast(ctx, kOp, self, out);
}

void to_dim_order_copy_out(KernelContext& ctx, const Tensor& self, bool non_blocking,
                           std::optional<IntArrayRef> dim_order, Tensor& out) {
  constexpr const char* kOp = "dim_order_ops::_to_dim_order_copy.out";
  (void)non_blocking;
  ETR_KERNEL_CHECK(ctx, !dim_order.has_value() || same_dim_order(*dim_order, out),
                   Error::InvalidArgument, "%s: dim_order does not match the out tensor's", kOp);
  copy_cast(ctx, kOp, self, out);
}

}  // namespace etr
