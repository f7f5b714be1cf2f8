#include "kernels/optimized/util/vec_broadcast.h"

#include "kernels/portable/util/broadcast.h"

namespace etr {
namespace opt {

bool has_default_dim_order(const Tensor& t) {
  const Span<const uint8_t> order = t.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

bool share_memory(const Tensor& a, const Tensor& b) {
  const uint8_t* a0 = static_cast<const uint8_t*>(a.const_data());
  const uint8_t* b0 = static_cast<const uint8_t*>(b.const_data());
  return a0 != nullptr && b0 != nullptr && a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

void make_broadcast_plan(Span<const Tensor* const> inputs, const Tensor& out, BroadcastPlan* plan) {
  const size_t n_in = inputs.size() < kMaxBroadcastInputs ? inputs.size() : kMaxBroadcastInputs;
  const Span<const int32_t> out_sizes = out.sizes();
  int64_t full[kMaxBroadcastInputs][kTensorMaxDim] = {};
  for (size_t k = 0; k < n_in; ++k) broadcast_strides(*inputs[k], out_sizes, full[k]);
  plan->num_inputs = n_in;
  plan->numel = out.numel();
  size_t r = 0;
  for (size_t d = 0; d < out_sizes.size(); ++d) {
    const int64_t size = out_sizes[d];
    if (size == 1) continue;  // contributes nothing to any offset
    // Merge with the previous kept dim when every input walks both as one.
    bool merge = r > 0;
    for (size_t k = 0; k < n_in && merge; ++k) {
      merge = plan->strides[k][r - 1] == full[k][d] * size;
    }
    if (merge) {
      plan->sizes[r - 1] *= size;
      for (size_t k = 0; k < n_in; ++k) plan->strides[k][r - 1] = full[k][d];
      continue;
    }
    plan->sizes[r] = size;
    for (size_t k = 0; k < n_in; ++k) plan->strides[k][r] = full[k][d];
    ++r;
  }
  if (r == 0) {  // 0-d or all-ones: one element
    plan->sizes[0] = 1;
    for (size_t k = 0; k < n_in; ++k) plan->strides[k][0] = 0;
    r = 1;
  }
  plan->rank = r;
}

}  // namespace opt
}  // namespace etr
