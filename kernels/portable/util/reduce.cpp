#include "kernels/portable/util/reduce.h"

namespace etr {
namespace {

// Marks the dims to reduce in reduce[]; all dims when `dims` is absent or empty.
Error mark_reduced_dims(const char* op, size_t rank, std::optional<Span<const int64_t>> dims,
                        bool* reduce) {
  const bool all = !dims.has_value() || dims->empty();
  for (size_t d = 0; d < rank; ++d) reduce[d] = all;
  if (all) return Error::Ok;
  for (int64_t dim : *dims) {
    size_t d = 0;
    ETR_RETURN_IF_ERROR(wrap_dim(op, dim, rank, &d));
    if (rank == 0) continue;
    if (reduce[d]) ETR_FAIL(Error::InvalidArgument, "%s: dim %zu appears more than once", op, d);
    reduce[d] = true;
  }
  return Error::Ok;
}

// mark_reduced_dims for dims it already accepted: no checks.
void mark_checked_dims(size_t rank, std::optional<Span<const int64_t>> dims, bool* reduce) {
  const bool all = !dims.has_value() || dims->empty();
  for (size_t d = 0; d < rank; ++d) reduce[d] = all;
  if (all || rank == 0) return;
  for (int64_t dim : *dims) reduce[wrapped_dim(dim, rank)] = true;
}

}  // namespace

Error check_reduce_args(const char* op, const Tensor& in, std::optional<Span<const int64_t>> dims,
                        bool keepdim, const Tensor& out) {
  const size_t rank = in.dim();
  bool reduce[kTensorMaxDim];
  ETR_RETURN_IF_ERROR(mark_reduced_dims(op, rank, dims, reduce));
  size_t out_rank = 0;
  for (size_t d = 0; d < rank; ++d) out_rank += (!reduce[d] || keepdim) ? 1 : 0;
  return check_rank(op, "out", out, out_rank);
}

Error make_reduce_plan(const char* op, const Tensor& in, std::optional<Span<const int64_t>> dims,
                       bool keepdim, Tensor& out, ReducePlan* plan) {
  const size_t rank = in.dim();
  bool reduce[kTensorMaxDim];
  mark_checked_dims(rank, dims, reduce);
  int64_t out_sizes[kTensorMaxDim];
  size_t out_dim = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (!reduce[d] || keepdim) out_sizes[out_dim++] = reduce[d] ? 1 : in.size(d);
  }
  ETR_RETURN_IF_ERROR(resize_output(op, out, Span<const int64_t>(out_sizes, out_dim)));
  *plan = ReducePlan();
  size_t out_d = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (reduce[d]) {
      plan->reduced_sizes[plan->num_reduced] = static_cast<int32_t>(in.size(d));
      plan->reduced_strides[0][plan->num_reduced++] = in.stride(d);
      plan->reduced_numel *= in.size(d);
      if (keepdim) ++out_d;
    } else {
      plan->kept_sizes[plan->num_kept] = static_cast<int32_t>(in.size(d));
      plan->kept_strides[0][plan->num_kept] = out.stride(out_d++);
      plan->kept_strides[1][plan->num_kept++] = in.stride(d);
    }
  }
  return Error::Ok;
}

void make_dim_plan(const Tensor& in, size_t dim, const Tensor& out, ReducePlan* plan) {
  *plan = ReducePlan();
  for (size_t d = 0; d < in.dim(); ++d) {
    if (d == dim) {
      plan->reduced_sizes[plan->num_reduced] = static_cast<int32_t>(in.size(d));
      plan->reduced_strides[0][plan->num_reduced++] = in.stride(d);
      plan->reduced_numel *= in.size(d);
    } else {
      plan->kept_sizes[plan->num_kept] = static_cast<int32_t>(in.size(d));
      plan->kept_strides[0][plan->num_kept] = out.stride(d);
      plan->kept_strides[1][plan->num_kept++] = in.stride(d);
    }
  }
}

}  // namespace etr
