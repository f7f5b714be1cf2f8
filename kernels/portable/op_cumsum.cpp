// aten::cumsum.out: out[..., i, ...] = sum of self[..., 0..i, ...] along dim.
// Elements are converted to out's dtype first (as PyTorch does when out is
// given) and accumulated in double for floating outs, in wrapping int64 for
// integer outs, then stored in out's dtype.
#include <type_traits>

#include "kernels/portable/reduction.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

template <typename OT>
bool cumsum_as(const Tensor& self, size_t dim, Tensor& out) {
  using Acc = std::conditional_t<std::is_floating_point<OT>::value, double, int64_t>;
  const internal::LoadFn<OT> load = internal::load_fn<OT>(self.dtype());
  if (load == nullptr) return false;
  const void* in = self.const_data();
  OT* o = out.data_ptr<OT>();
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t in_stride = self.dim() == 0 ? 1 : self.stride(dim);
  const int64_t out_stride = out.dim() == 0 ? 1 : out.stride(dim);
  // Every (outer, inner) line along dim, through both tensors' strides.
  const int64_t lines = n == 0 ? 0 : self.numel() / n;
  for (int64_t line = 0; line < lines; ++line) {
    int64_t rem = line, in_off = 0, out_off = 0;
    for (size_t d = self.dim(); d-- > 0;) {
      if (d == dim) continue;
      const int64_t i = rem % self.size(d);
      rem /= self.size(d);
      in_off += i * self.stride(d);
      out_off += i * out.stride(d);
    }
    Acc acc = 0;
    for (int64_t k = 0; k < n; ++k) {
      acc = add_wrap(acc, static_cast<Acc>(load(in, in_off + k * in_stride)));
      o[out_off + k * out_stride] = convert<OT>(acc);
    }
  }
  return true;
}

}  // namespace

Error cumsum_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                     std::optional<ScalarType> dtype, Tensor& out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  ETR_RETURN_IF_ERROR(check_rank(op, "out", out, self.dim()));
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "out", out.dtype(), kRealTypes));
  if (dtype.has_value()) ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, *dtype));
  return Error::Ok;
}

void cumsum_out(KernelContext& ctx, const Tensor& self, int64_t dim,
                std::optional<ScalarType> /*dtype*/, Tensor& out) {
  ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
  const size_t d = wrapped_dim(dim, self.dim());
  bool done = false;
  const bool known = dispatch_real(
      out.dtype(), [&](auto tag) { done = cumsum_as<typename decltype(tag)::type>(self, d, out); });
  ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), known && done, out.dtype()));
}

}  // namespace etr
