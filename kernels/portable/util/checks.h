// The argument checks of the portable kernels. Every check returns Error:
// Ok, or the error after logging "<op>: <what is wrong>" (ETR_FAIL), so a
// prepare step returns it (ETR_RETURN_IF_ERROR) and a run step records it
// (ETR_KERNEL_TRY):
//
//   Error relu_prepare(KernelPrepareContext& ctx, const Tensor& self, Tensor& out) {
//     return check_can_cast(ctx.op_name(), self.dtype(), out);
//   }
//   void relu_out(KernelContext& ctx, const Tensor& self, Tensor& out) {
//     ETR_KERNEL_TRY(ctx, resize_output(ctx.op_name(), out, self.sizes()));
//     ...
//   }
//
// `op` is always the caller's ctx.op_name(); `what` names the argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// ---- dtypes

// InvalidType unless t has dtype `expected`.
[[nodiscard]] Error check_dtype(const char* op, const char* what, const Tensor& t,
                                ScalarType expected);
// InvalidType unless `dtype` (of the argument `what`) is in `allowed`.
[[nodiscard]] Error check_dtype_in(const char* op, const char* what, ScalarType dtype,
                                   DtypeSet allowed);
// InvalidType unless torch.can_cast(from, out.dtype()): no floating ->
// integral/bool and no non-bool -> bool.
[[nodiscard]] Error check_can_cast(const char* op, ScalarType from, const Tensor& out);
// torch.can_cast.
bool can_cast(ScalarType from, ScalarType to);

// The safety net of run()'s dtype switch: Ok when `dispatched`, else logs
// that `dtype` reached a kernel that load should have refused and returns
// Error::Internal.
//   ETR_KERNEL_TRY(ctx, check_dispatched(ctx.op_name(), dispatch_real(t, fn), t));
[[nodiscard]] Error check_dispatched(const char* op, bool dispatched, ScalarType dtype);
// The same safety net for a run() that reads several tensors as one
// element type: Internal unless every tensor in `tensors` (null entries
// skipped) has `dtype`, which its prepare step checked. Keeps a run called
// without prepare from reading or writing past a buffer.
[[nodiscard]] Error check_operand_dtypes(const char* op, ScalarType dtype,
                                         std::initializer_list<const Tensor*> tensors);

// ---- ranks, layouts, shapes

// InvalidArgument unless t.dim() == rank.
[[nodiscard]] Error check_rank(const char* op, const char* what, const Tensor& t, size_t rank);
// InvalidArgument unless lo <= t.dim() <= hi.
[[nodiscard]] Error check_rank_in(const char* op, const char* what, const Tensor& t, size_t lo,
                                  size_t hi);
// NotSupported unless t's memory is laid out in the default (contiguous) dim
// order (size-1 dims may have any stride).
[[nodiscard]] Error check_default_layout(const char* op, const char* what, const Tensor& t);
// InvalidArgument unless a and b have the same sizes.
[[nodiscard]] Error check_same_shape(const char* op, const char* what_a, const Tensor& a,
                                     const char* what_b, const Tensor& b);

// True when t's memory is laid out like the default dim order (size-1 dims
// may carry any stride).
bool is_default_layout(const Tensor& t);

// ---- dims

// Wraps a possibly negative `dim` into [0, rank); a rank-0 tensor accepts -1
// and 0 (both give 0), as in PyTorch. InvalidArgument when out of range.
[[nodiscard]] Error wrap_dim(const char* op, int64_t dim, size_t rank, size_t* out);
// run()'s form for a `dim` its prepare step already checked with wrap_dim:
// the same wrapped value, without a check.
inline size_t wrapped_dim(int64_t dim, size_t rank) {
  const int64_t r = rank == 0 ? 1 : static_cast<int64_t>(rank);
  return static_cast<size_t>(dim < 0 ? dim + r : dim);
}

// ---- output resizing

// Resizes `out` to `sizes`: InvalidArgument when the ranks differ, else the
// resize error (a static out of other sizes, or past a dynamic out's
// capacity). The message names the op and both shapes.
[[nodiscard]] Error resize_output(const char* op, Tensor& out, Span<const int64_t> sizes);
[[nodiscard]] Error resize_output(const char* op, Tensor& out, Span<const int32_t> sizes);

// ---- messages

// A shape rendered as "[2,3,4]" for log messages (elided past 190 chars).
class ShapeText final {
 public:
  explicit ShapeText(Span<const int32_t> sizes);
  explicit ShapeText(Span<const int64_t> sizes);
  explicit ShapeText(const Tensor& t) : ShapeText(t.sizes()) {}
  const char* c_str() const { return text_; }

 private:
  char text_[192];
};

}  // namespace etr
