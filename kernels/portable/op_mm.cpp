// aten::mm.out and aten::bmm.out: (batched) matrix products of integer
// (wrapping), float or double matrices in the default dim order (see
// util/gemm.h).
#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/util/dtype_dispatch.h"
#include "kernels/portable/util/gemm.h"

namespace etr {

Error mm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_matmul_operands(op, self, mat2, out));
  ETR_RETURN_IF_ERROR(check_rank(op, "self", self, 2));
  return check_rank(op, "mat2", mat2, 2);
}

void mm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, out.dtype(), {&self, &mat2}));
  ETR_KERNEL_CHECK(ctx, self.size(1) == mat2.size(0), Error::InvalidArgument,
                   "%s: inner dims differ: %s x %s", op, ShapeText(self).c_str(),
                   ShapeText(mat2).c_str());
  const int64_t sizes[2] = {self.size(0), mat2.size(1)};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 2)));
  const bool known = dispatch_real(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.data_ptr<T>();
    zero_fill(c, out.numel());
    gemm_acc(self.const_data_ptr<T>(), mat2.const_data_ptr<T>(), c, sizes[0], self.size(1),
             sizes[1], T(1));
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

Error bmm_prepare(KernelPrepareContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_RETURN_IF_ERROR(check_matmul_operands(op, self, mat2, out));
  ETR_RETURN_IF_ERROR(check_rank(op, "self", self, 3));
  return check_rank(op, "mat2", mat2, 3);
}

void bmm_out(KernelContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, out.dtype(), {&self, &mat2}));
  ETR_KERNEL_CHECK(ctx, self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1),
                   Error::InvalidArgument, "%s: batch or inner dims differ: %s x %s", op,
                   ShapeText(self).c_str(), ShapeText(mat2).c_str());
  const int64_t sizes[3] = {self.size(0), self.size(1), mat2.size(2)};
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, 3)));
  const int64_t m = sizes[1], k = self.size(2), n = sizes[2];
  const bool known = dispatch_real(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* c = out.data_ptr<T>();
    zero_fill(c, out.numel());
    const T* a = self.const_data_ptr<T>();
    const T* b = mat2.const_data_ptr<T>();
    for (int64_t bi = 0; bi < sizes[0]; ++bi) {
      gemm_acc(a + bi * m * k, b + bi * k * n, c + bi * m * n, m, k, n, T(1));
    }
  });
  ETR_KERNEL_TRY(ctx, check_dispatched(op, known, out.dtype()));
}

}  // namespace etr
