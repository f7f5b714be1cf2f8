// Broadcasting for the optimized elementwise kernels: up to three
// default-layout inputs read in the index space of a contiguous out, with
// size-1 dims dropped and mergeable dims collapsed, walked as contiguous runs
// of the innermost dim in which each input has stride 0 (one element) or 1.
// [N,C,H,W] op [N,C,1,1] collapses to [N*C, H*W] with runs of H*W against one
// element; [..., D] op [D] to runs of D against the same D elements.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etr {
namespace opt {

constexpr size_t kMaxBroadcastInputs = 3;

struct BroadcastPlan {
  size_t rank = 1;  // collapsed rank, >= 1
  size_t num_inputs = 0;
  int64_t numel = 0;
  int64_t sizes[kTensorMaxDim] = {};
  // Element strides of input k in the collapsed out index space (0: broadcast).
  int64_t strides[kMaxBroadcastInputs][kTensorMaxDim] = {};

  // Stride of input k along the innermost dim: 0 or 1.
  size_t inner_stride(size_t k) const { return static_cast<size_t>(strides[k][rank - 1]); }
};

// True when `t` has the default (contiguous, row-major) dim order.
bool has_default_dim_order(const Tensor& t);

// True when the bytes of `a` and `b` overlap (both bound).
bool share_memory(const Tensor& a, const Tensor& b);

// Builds the plan for `inputs` (default dim order, each broadcasting to out's
// sizes) read as a tensor of out's sizes. Precondition: out was resized to the
// broadcast shape (resize_to_broadcast).
void make_broadcast_plan(Span<const Tensor* const> inputs, const Tensor& out, BroadcastPlan* plan);

// Calls fn(out_offset, in_offsets, length) for each run of the flat out range
// [begin, end): out elements out_offset .. out_offset + length - 1 read input k
// from in_offsets[k] with stride plan.inner_stride(k).
template <typename F>
void for_each_run(const BroadcastPlan& p, int64_t begin, int64_t end, F&& fn) {
  if (begin >= end) return;
  const size_t last = p.rank - 1;
  int64_t idx[kTensorMaxDim] = {};
  int64_t off[kMaxBroadcastInputs] = {};
  int64_t rem = begin;
  for (size_t d = p.rank; d-- > 0;) {
    idx[d] = rem % p.sizes[d];
    rem /= p.sizes[d];
    for (size_t k = 0; k < p.num_inputs; ++k) off[k] += idx[d] * p.strides[k][d];
  }
  const int64_t inner = p.sizes[last];
  int64_t pos = begin;
  while (pos < end) {
    const int64_t len = inner - idx[last] < end - pos ? inner - idx[last] : end - pos;
    fn(pos, static_cast<const int64_t*>(off), len);
    pos += len;
    if (pos >= end) break;
    // Carry into the outer dims (the run always ends at the end of the row here).
    for (size_t k = 0; k < p.num_inputs; ++k) off[k] -= idx[last] * p.strides[k][last];
    idx[last] = 0;
    for (size_t d = last; d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < p.num_inputs; ++k) off[k] += p.strides[k][d];
      if (idx[d] < p.sizes[d]) break;
      for (size_t k = 0; k < p.num_inputs; ++k) off[k] -= idx[d] * p.strides[k][d];
      idx[d] = 0;
    }
  }
}

}  // namespace opt
}  // namespace etr
