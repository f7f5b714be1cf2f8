// aten::clamp with Scalar bounds and with Tensor bounds: computed in the
// promoted dtype of self and the given bounds (never bool); a NaN input or
// bound gives NaN.
#include "kernels/portable/activation.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

ScalarType clamp_type(const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  ResultType rt;
  rt.add(self);
  if (min.has_value()) rt.add(*min);
  if (max.has_value()) rt.add(*max);
  return rt.get();
}

ScalarType clamp_type(const Tensor& self, const Tensor* min, const Tensor* max) {
  ResultType rt;
  rt.add(self);
  if (min != nullptr) rt.add(*min);
  if (max != nullptr) rt.add(*max);
  return rt.get();
}

Error check_clamp(const char* op, bool has_bound, ScalarType common, const Tensor& out) {
  if (!has_bound) {
    ETR_FAIL(Error::InvalidArgument, "%s: at least one of 'min' or 'max' must not be None", op);
  }
  ETR_RETURN_IF_ERROR(check_not_bool(op, common));
  return check_can_cast(op, common, out);
}

}  // namespace

Error clamp_prepare(KernelPrepareContext& ctx, const Tensor& self, std::optional<Scalar> min,
                    std::optional<Scalar> max, Tensor& out) {
  return check_clamp(ctx.op_name(), min.has_value() || max.has_value(), clamp_type(self, min, max),
                     out);
}

void clamp_out(KernelContext& ctx, const Tensor& self, std::optional<Scalar> min,
               std::optional<Scalar> max, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const ScalarType common = clamp_type(self, min, max);
  ETR_KERNEL_TRY(ctx,
                 dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
                   using CT = typename decltype(tag)::type;
                   const bool has_lo = min.has_value();
                   const bool has_hi = max.has_value();
                   const CT lo = has_lo ? scalar_to<CT>(*min) : CT(0);
                   const CT hi = has_hi ? scalar_to<CT>(*max) : CT(0);
                   return apply_elementwise(
                       out,
                       [=](CT x) {
                         if (has_lo) x = max_propagate_nan(x, lo);
                         return has_hi ? min_propagate_nan(x, hi) : x;
                       },
                       read_as<CT>(self));
                 }));
}

Error clamp_tensor_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor* min,
                           const Tensor* max, Tensor& out) {
  return check_clamp(ctx.op_name(), min != nullptr || max != nullptr, clamp_type(self, min, max),
                     out);
}

void clamp_tensor_out(KernelContext& ctx, const Tensor& self, const Tensor* min, const Tensor* max,
                      Tensor& out) {
  // Safety net: prepare refuses a call without bounds.
  ETR_KERNEL_CHECK(ctx, min != nullptr || max != nullptr, Error::Internal, "%s: no bounds",
                   ctx.op_name());
  const Tensor* ins[3] = {&self, min != nullptr ? min : max, max};
  const size_t n = (min != nullptr && max != nullptr) ? 3 : 2;
  ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, Span<const Tensor* const>(ins, n)));
  const ScalarType common = clamp_type(self, min, max);
  ETR_KERNEL_TRY(
      ctx, dispatch_elementwise<ComputeTypes::kReal>(ctx.op_name(), common, [&](auto tag) {
        using CT = typename decltype(tag)::type;
        if (n == 3) {
          return apply_elementwise(
              out,
              [](CT x, CT lo, CT hi) { return min_propagate_nan(max_propagate_nan(x, lo), hi); },
              read_as<CT>(self), read_as<CT>(*min), read_as<CT>(*max));
        }
        if (min != nullptr) {
          return apply_elementwise(
              out, [](CT x, CT lo) { return max_propagate_nan(x, lo); }, read_as<CT>(self),
              read_as<CT>(*min));
        }
        return apply_elementwise(
            out, [](CT x, CT hi) { return min_propagate_nan(x, hi); }, read_as<CT>(self),
            read_as<CT>(*max));
      }));
}

}  // namespace etr
