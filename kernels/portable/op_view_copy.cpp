// Reshaping copies: aten::view_copy.out, unsqueeze_copy.out, squeeze_copy.out,
// squeeze_copy.dim_out and squeeze_copy.dims_out. Element bytes are copied
// in row-major logical order (any dtype); any dim order on either side, as
// long as one of input and out has the default layout.
#include "kernels/portable/shape.h"
#include "kernels/portable/util/copy_util.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// Resizes out to sizes[0..n) and copies self into it in row-major order.
void finish_reshape(KernelContext& ctx, const Tensor& self, const int64_t* sizes, size_t n,
                    Tensor& out) {
  const char* op = ctx.op_name();
  ETR_KERNEL_TRY(ctx, check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_KERNEL_TRY(ctx, resize_output(op, out, Span<const int64_t>(sizes, n)));
  ETR_KERNEL_CHECK(ctx, copy_reshape(out, self), Error::NotSupported,
                   "%s: input and out both have non-default dim orders", op);
}

// PyTorch's infer_size: resolves at most one -1 against numel (the sizes
// may be symbolic; their count was checked at load).
Error infer_view_sizes(const char* op, IntArrayRef size, int64_t numel, int64_t* sizes) {
  int64_t known = 1;
  size_t infer_at = kTensorMaxDim;
  for (size_t i = 0; i < size.size(); ++i) {
    sizes[i] = size[i];
    if (size[i] == -1) {
      ETR_CHECK_OR_FAIL(infer_at == kTensorMaxDim, Error::InvalidArgument,
                        "%s: only one dimension can be inferred in %s", op,
                        ShapeText(size).c_str());
      infer_at = i;
      continue;
    }
    ETR_CHECK_OR_FAIL(size[i] >= 0, Error::InvalidArgument, "%s: invalid shape dimension %lld", op,
                      static_cast<long long>(size[i]));
    ETR_CHECK_OR_FAIL(checked_mul_i64(known, size[i], &known), Error::InvalidArgument,
                      "%s: shape %s overflows", op, ShapeText(size).c_str());
  }
  if (infer_at != kTensorMaxDim) {
    ETR_CHECK_OR_FAIL(known != 0 && numel % known == 0, Error::InvalidArgument,
                      "%s: cannot infer -1 in shape %s for %lld elements", op,
                      ShapeText(size).c_str(), static_cast<long long>(numel));
    sizes[infer_at] = numel / known;
    known = numel;
  }
  ETR_CHECK_OR_FAIL(known == numel, Error::InvalidArgument,
                    "%s: shape %s is invalid for input of size %lld", op, ShapeText(size).c_str(),
                    static_cast<long long>(numel));
  return Error::Ok;
}

// Drops the dims flagged in `drop` that have size 1.
void squeeze_flagged(KernelContext& ctx, const Tensor& self, const bool* drop, Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  size_t n = 0;
  for (size_t i = 0; i < self.dim(); ++i) {
    if (!(drop[i] && self.size(i) == 1)) sizes[n++] = self.size(i);
  }
  finish_reshape(ctx, self, sizes, n, out);
}

// Every reshape's output: out has self's dtype.
Error check_reshape_out(const char* op, const Tensor& self, const Tensor& out) {
  return check_dtype(op, "out", out, self.dtype());
}

}  // namespace

// ---- Prepare

Error view_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef size,
                        Tensor& out) {
  const char* op = ctx.op_name();
  ETR_CHECK_OR_FAIL(size.size() <= kTensorMaxDim, Error::InvalidArgument,
                    "%s: %zu dims exceed the rank limit", op, size.size());
  ETR_RETURN_IF_ERROR(check_reshape_out(op, self, out));
  return check_rank(op, "out", out, size.size());
}

Error unsqueeze_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                             Tensor& out) {
  const char* op = ctx.op_name();
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(op, dim, self.dim() + 1, &d));
  ETR_CHECK_OR_FAIL(self.dim() < kTensorMaxDim, Error::InvalidArgument,
                    "%s: result would exceed the rank limit", op);
  ETR_RETURN_IF_ERROR(check_reshape_out(op, self, out));
  return check_rank(op, "out", out, self.dim() + 1);
}

// Which dims squeeze drops depends on sizes, so out's rank is checked in run().
Error squeeze_copy_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
  return check_reshape_out(ctx.op_name(), self, out);
}

Error squeeze_copy_dim_prepare(KernelPrepareContext& ctx, const Tensor& self, int64_t dim,
                               Tensor& out) {
  size_t d = 0;
  ETR_RETURN_IF_ERROR(wrap_dim(ctx.op_name(), dim, self.dim(), &d));
  return check_reshape_out(ctx.op_name(), self, out);
}

Error squeeze_copy_dims_prepare(KernelPrepareContext& ctx, const Tensor& self, IntArrayRef dims,
                                Tensor& out) {
  const char* op = ctx.op_name();
  bool seen[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = 0;
    ETR_RETURN_IF_ERROR(wrap_dim(op, dims[i], self.dim(), &d));
    ETR_CHECK_OR_FAIL(!seen[d], Error::InvalidArgument,
                      "%s: dim %zu appears multiple times in the list of dims", op, d);
    seen[d] = true;
  }
  return check_reshape_out(op, self, out);
}

// ---- Run

void view_copy_out(KernelContext& ctx, const Tensor& self, IntArrayRef size, Tensor& out) {
  int64_t sizes[kTensorMaxDim];
  ETR_KERNEL_TRY(ctx, infer_view_sizes(ctx.op_name(), size, self.numel(), sizes));
  finish_reshape(ctx, self, sizes, size.size(), out);
}

void unsqueeze_copy_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  const size_t d = wrapped_dim(dim, self.dim() + 1);
  int64_t sizes[kTensorMaxDim];
  for (size_t i = 0, j = 0; i <= self.dim(); ++i) sizes[i] = i == d ? 1 : self.size(j++);
  finish_reshape(ctx, self, sizes, self.dim() + 1, out);
}

void squeeze_copy_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
  bool drop[kTensorMaxDim];
  for (size_t i = 0; i < kTensorMaxDim; ++i) drop[i] = true;
  squeeze_flagged(ctx, self, drop, out);
}

void squeeze_copy_dim_out(KernelContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  bool drop[kTensorMaxDim] = {};
  drop[wrapped_dim(dim, self.dim())] = true;
  squeeze_flagged(ctx, self, drop, out);
}

void squeeze_copy_dims_out(KernelContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  bool drop[kTensorMaxDim] = {};
  for (size_t i = 0; i < dims.size(); ++i) drop[wrapped_dim(dims[i], self.dim())] = true;
  squeeze_flagged(ctx, self, drop, out);
}

}  // namespace etr
