// aten::glu.out: splits self in two halves a, b along dim and writes
// a * sigmoid(b), computed in self's floating dtype and cast to out's. Any
// dim order.
#include <cmath>

#include "kernels/portable/activation.h"
#include "kernels/portable/util/elementwise.h"

namespace etr {
namespace {

template <typename T, typename O>
void glu_loop(const Tensor& self, size_t dim, Tensor& out) {
  int64_t strides[3][kTensorMaxDim];
  for (size_t d = 0; d < out.dim(); ++d) {
    strides[0][d] = out.stride(d);
    strides[1][d] = self.stride(d);
    strides[2][d] = self.stride(d);
  }
  const T* in = self.const_data_ptr<T>();
  const T* second = in + out.size(dim) * self.stride(dim);
  O* o = out.data_ptr<O>();
  for_each_offset<3>(out.sizes(), strides, [&](const int64_t* off) {
    const T a = in[off[1]];
    const T b = second[off[2]];
    o[off[0]] = convert<O>(a * (T(1) / (T(1) + std::exp(-b))));
  });
}

}  // namespace

Error glu_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(self.dim() > 0, Error::InvalidArgument,
                    "%s: self must have at least 1 dim (glu halves a dim)", op);
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim(), &d));
  ETR_RETURN_IF_ERROR(check_can_cast(op, self.dtype(), out));
  return check_rank(op, "out", out, self.dim());
}

void glu_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  const char* op = ctx.op_name();
  const size_t d = wrapped_dim(dim, self.dim());
  ETR_KERNEL_CHECK(ctx, self.dim() > 0 && self.size(d) % 2 == 0, Error::InvalidArgument,
                   "%s: halving dim %zu must have an even size, got %s", op, d,
                   ShapeText(self).c_str());
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0; i < self.dim(); ++i) sizes[i] = self.size(i);
  sizes[d] /= 2;
  ETR_KERNEL_TRY(ctx, resize_output(op, out, IntArrayRef(sizes, self.dim())));
  if (out.numel() == 0) return;
  bool known_out = true;
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    known_out = dispatch_floating(out.dtype(), [&](auto out_tag) {
      glu_loop<T, typename decltype(out_tag)::type>(self, d, out);
    });
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, self.dtype()));
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known_out, out.dtype()));
}

}  // namespace etr
