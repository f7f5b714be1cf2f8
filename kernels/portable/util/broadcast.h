// Broadcasting helpers shared by elementwise kernels (PyTorch rules: shapes
// are right-aligned; two sizes combine when they are equal or one is 1).
//
// A kernel with inputs a, b and output out typically does:
//
//   const Tensor* ins[] = {&a, &b};
//   ETR_KERNEL_TRY(ctx, resize_to_broadcast(ctx.op_name(), out, ins));
//   ...
//   int64_t strides[3][kTensorMaxDim];
//   broadcast_strides(out, out.sizes(), strides[0]);
//   broadcast_strides(a, out.sizes(), strides[1]);
//   broadcast_strides(b, out.sizes(), strides[2]);
//   for_each_offset<3>(out.sizes(), strides, [&](const int64_t* off) {
//     o[off[0]] = pa[off[1]] + pb[off[2]];
//   });
//
// Offsets come from each tensor's own strides, so any dim order works.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/util/checks.h"
#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etr {

// Sizes of broadcasting every tensor in `inputs` together, written to
// out_sizes (kTensorMaxDim long) with the rank in *out_dim. Returns false when
// the shapes do not broadcast.
bool broadcast_sizes(Span<const Tensor* const> inputs, int64_t* out_sizes, size_t* out_dim);

// Resizes `out` (with resize_output) to the broadcast shape of `inputs`. On
// failure logs "<op>: cannot broadcast [..] with [..]" (or why the resize
// failed) and returns the error.
[[nodiscard]] Error resize_to_broadcast(const char* op, Tensor& out,
                                        Span<const Tensor* const> inputs);

// True when `t`'s shape broadcasts to `sizes` (t's rank may be lower).
bool broadcasts_to(const Tensor& t, Span<const int32_t> sizes);

// Element strides of `t` read as a tensor of `out_sizes` (precondition:
// broadcasts_to(t, out_sizes)). Dims are right-aligned; a dim that `t` lacks
// or has with size 1, and every dim whose out size is 1, gets stride 0.
// `strides` must hold out_sizes.size() entries.
void broadcast_strides(const Tensor& t, Span<const int32_t> out_sizes, int64_t* strides);

// True when the first `dim` strides of all N operands are identical, i.e. a
// flat loop over 0..numel-1 visits the same elements as for_each_offset.
template <size_t N>
bool same_strides(const int64_t (&strides)[N][kTensorMaxDim], size_t dim) {
  for (size_t k = 1; k < N; ++k) {
    for (size_t d = 0; d < dim; ++d) {
      if (strides[k][d] != strides[0][d]) return false;
    }
  }
  return true;
}

// Calls fn(offsets) once per element of a tensor of `sizes`, in row-major
// order of the logical index; offsets[k] = sum over d of index[d] *
// strides[k][d], the element offset into operand k. A 0-d shape visits one
// element; a shape with a zero size visits none.
template <size_t N, typename F>
void for_each_offset(Span<const int32_t> sizes, const int64_t (&strides)[N][kTensorMaxDim],
                     F&& fn) {
  const size_t dim = sizes.size();
  for (size_t d = 0; d < dim; ++d) {
    if (sizes[d] == 0) return;
  }
  int64_t base[N] = {};
  if (dim == 0) {
    fn(static_cast<const int64_t*>(base));
    return;
  }
  const size_t last = dim - 1;
  const int64_t inner = sizes[last];
  int64_t index[kTensorMaxDim] = {};
  while (true) {
    int64_t cur[N];
    for (size_t k = 0; k < N; ++k) cur[k] = base[k];
    for (int64_t i = 0; i < inner; ++i) {
      fn(static_cast<const int64_t*>(cur));
      for (size_t k = 0; k < N; ++k) cur[k] += strides[k][last];
    }
    // Advance the outer dims like an odometer.
    size_t d = last;
    while (true) {
      if (d == 0) return;
      --d;
      if (++index[d] < sizes[d]) {
        for (size_t k = 0; k < N; ++k) base[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) base[k] -= (sizes[d] - 1) * strides[k][d];
      index[d] = 0;
    }
  }
}

}  // namespace etr
