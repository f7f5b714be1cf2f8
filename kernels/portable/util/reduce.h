// Reduction planning shared by the portable reduction and normalization
// kernels. A plan splits the input's dims into kept dims (one output element
// per index) and reduced dims (walked per output element); both walks use
// the tensors' own strides, so any dim order works.
//
//   // prepare:
//   ETR_RETURN_IF_ERROR(check_reduce_args(ctx.op_name(), self, dims, keepdim, out));
//   // run:
//   ReducePlan plan;
//   ETR_KERNEL_TRY(ctx, make_reduce_plan(ctx.op_name(), self, dims, keepdim, out, &plan));
//   for_each_group(plan, [&](int64_t out_off, int64_t in_base) {
//     double acc = 0;
//     for_each_reduced(plan, in_base, [&](int64_t in_off) { acc += in[in_off]; });
//     o[out_off] = acc;
//   });
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/portable/util/broadcast.h"
#include "kernels/portable/util/checks.h"
#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace etr {

struct ReducePlan {
  size_t num_kept = 0;
  int32_t kept_sizes[kTensorMaxDim];
  int64_t kept_strides[2][kTensorMaxDim];  // [0]: out, [1]: input
  size_t num_reduced = 0;
  int32_t reduced_sizes[kTensorMaxDim];
  int64_t reduced_strides[1][kTensorMaxDim];  // input
  int64_t reduced_numel = 1;                  // elements per group
};

// The load-time checks of a reduction over `dims` (nullopt or an empty list
// reduces every dim), for a prepare step: every dim is valid for in's rank
// (wrap_dim), none is given twice, and out has the result's rank (in's
// rank with `keepdim`, else less the reduced dims).
[[nodiscard]] Error check_reduce_args(const char* op, const Tensor& in,
                                      std::optional<Span<const int64_t>> dims, bool keepdim,
                                      const Tensor& out);

// Reduces `in` over `dims`, which check_reduce_args accepted at load (they
// are wrapped without checks). Resizes `out` (resize_output) to the result
// shape (reduced dims kept as size 1 when `keepdim`) and fills *plan. Logs
// "<op>: ..." and returns the resize error on failure.
[[nodiscard]] Error make_reduce_plan(const char* op, const Tensor& in,
                                     std::optional<Span<const int64_t>> dims, bool keepdim,
                                     Tensor& out, ReducePlan* plan);

// Plan for ops that keep the input's shape and work along one `dim` (softmax
// and friends): kept dims are all others, with output strides taken from
// `out` (same shape as `in`); the only reduced dim is `dim` (< in.dim(), or
// 0 for a 0-d input, which then has no reduced dim).
void make_dim_plan(const Tensor& in, size_t dim, const Tensor& out, ReducePlan* plan);

// Calls fn(out_offset, in_base) once per output element, in row-major order.
template <typename F>
void for_each_group(const ReducePlan& plan, F&& fn) {
  for_each_offset<2>(Span<const int32_t>(plan.kept_sizes, plan.num_kept), plan.kept_strides,
                     [&](const int64_t* off) { fn(off[0], off[1]); });
}

// Calls fn(in_offset) for each element of the group starting at in_base, in
// row-major order of the reduced dims (so a running count is the flattened
// index within the group).
template <typename F>
void for_each_reduced(const ReducePlan& plan, int64_t in_base, F&& fn) {
  for_each_offset<1>(Span<const int32_t>(plan.reduced_sizes, plan.num_reduced),
                     plan.reduced_strides, [&](const int64_t* off) { fn(in_base + off[0]); });
}

}  // namespace etr
