// aten::max_pool2d_with_indices_backward.grad_input: grad_input has self's
// shape, is zero except that every grad_output element is added at the
// flattened H*W position its `indices` entry names, in its (n, c) plane.
// The window arguments are only checked for form; the indices (from
// max_pool2d_with_indices) say where each gradient goes, and every index
// is range-checked before anything is written. Float and Double (PyTorch
// refuses integers), indices Long, every tensor in any dim order (each is
// addressed through its strides; indices stay per-plane h * W + w).
#include <algorithm>
#include <cstdint>

#include "kernels/portable/pooling.h"
#include "kernels/portable/util/checks.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/pool.h"

namespace etr {
namespace {

// A window list: `allow_empty` (stride) or 1 or 2 entries, each >= lo.
Error check_window_list(const char* op, const char* what, IntArrayRef list, bool allow_empty,
                        int64_t lo) {
  ETR_CHECK_OR_FAIL((allow_empty && list.size() == 0) || list.size() == 1 || list.size() == 2,
                    Error::InvalidArgument, "%s: %s must have 1 or 2 entries, got %zu", op, what,
                    list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    ETR_CHECK_OR_FAIL(list[i] >= lo, Error::InvalidArgument, "%s: %s %s must be >= %lld", op, what,
                      ShapeText(list).c_str(), static_cast<long long>(lo));
  }
  return Error::Ok;
}

}  // namespace

Error max_pool2d_with_indices_backward_prepare(KernelPrepareContext& ctx, const Tensor& grad_output,
                                               const Tensor& self, IntArrayRef kernel_size,
                                               IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation, bool, const Tensor& indices,
                                               Tensor& grad_input) {
  const char* op = ctx.op_name();
  const ScalarType t = self.dtype();
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "self", t, kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "grad_output", grad_output, t));
  ETR_RETURN_IF_ERROR(check_dtype(op, "grad_input", grad_input, t));
  ETR_RETURN_IF_ERROR(check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "self", self, 3, 4));
  ETR_RETURN_IF_ERROR(check_rank(op, "grad_output", grad_output, self.dim()));
  ETR_RETURN_IF_ERROR(check_rank(op, "indices", indices, self.dim()));
  ETR_RETURN_IF_ERROR(check_rank(op, "grad_input", grad_input, self.dim()));
  ETR_RETURN_IF_ERROR(check_window_list(op, "kernel_size", kernel_size, false, 1));
  ETR_RETURN_IF_ERROR(check_window_list(op, "stride", stride, true, 1));
  ETR_RETURN_IF_ERROR(check_window_list(op, "padding", padding, false, 0));
  return check_window_list(op, "dilation", dilation, false, 1);
}

void max_pool2d_with_indices_backward_grad_input(KernelContext& ctx, const Tensor& grad_output,
                                                 const Tensor& self, IntArrayRef, IntArrayRef,
                                                 IntArrayRef, IntArrayRef, bool,
                                                 const Tensor& indices, Tensor& grad_input) {
  const char* op = ctx.op_name();
  const ScalarType t = self.dtype();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, t, {&grad_output, &grad_input}));
  ETR_KERNEL_TRY(ctx, check_dtype(op, "indices", indices, ScalarType::Long));
  const size_t rank = self.dim();
  ETR_KERNEL_CHECK(ctx, (rank == 3 || rank == 4) && grad_output.dim() == rank, Error::Internal,
                   "%s: ranks not prepared", op);
  ETR_KERNEL_TRY(ctx, check_same_shape(op, "grad_output", grad_output, "indices", indices));
  bool planes_match = true;
  for (size_t d = 0; d + 2 < rank; ++d) planes_match &= grad_output.size(d) == self.size(d);
  ETR_KERNEL_CHECK(ctx, planes_match, Error::InvalidArgument,
                   "%s: grad_output %s and self %s differ outside the last two dims", op,
                   ShapeText(grad_output).c_str(), ShapeText(self).c_str());
  ETR_KERNEL_TRY(ctx, resize_output(op, grad_input, self.sizes()));
  const int64_t ih = self.size(rank - 2), iw = self.size(rank - 1);
  const int64_t in_plane = ih * iw;
  const int64_t oh = grad_output.size(rank - 2), ow = grad_output.size(rank - 1);
  const int64_t channels = self.size(rank - 3), batch = rank == 4 ? self.size(0) : 1;
  // Every tensor's memory holds exactly numel elements, whatever its dim order.
  const int64_t* idx = indices.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < indices.numel(); ++i) {
    ETR_KERNEL_CHECK(ctx, idx[i] >= 0 && idx[i] < in_plane, Error::InvalidArgument,
                     "%s: indices[%lld] = %lld is outside the %lld positions of a plane", op,
                     static_cast<long long>(i), static_cast<long long>(idx[i]),
                     static_cast<long long>(in_plane));
  }
  const PoolStrides sgi = pool_strides(grad_input, 2), sgo = pool_strides(grad_output, 2);
  const PoolStrides sx = pool_strides(indices, 2);
  const bool known = dispatch_floating(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* gi = grad_input.data_ptr<T>();
    const T* go = grad_output.const_data_ptr<T>();
    std::fill(gi, gi + grad_input.numel(), T(0));
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        T* gi_plane = gi + n * sgi.n + c * sgi.c;
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t j = idx[n * sx.n + c * sx.c + y * sx.h + x * sx.w];
            gi_plane[(j / iw) * sgi.h + (j % iw) * sgi.w] +=
                go[n * sgo.n + c * sgo.c + y * sgo.h + x * sgo.w];
          }
        }
      }
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, t));
}

}  // namespace etr
