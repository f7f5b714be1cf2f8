#include "kernels/portable/util/broadcast.h"

namespace etr {

bool broadcast_sizes(Span<const Tensor* const> inputs, int64_t* out_sizes, size_t* out_dim) {
  size_t dim = 0;
  for (const Tensor* t : inputs) {
    if (t->dim() > dim) dim = t->dim();
  }
  if (dim > kTensorMaxDim) return false;
  for (size_t d = 0; d < dim; ++d) out_sizes[d] = 1;
  for (const Tensor* t : inputs) {
    const size_t shift = dim - t->dim();
    for (size_t d = 0; d < t->dim(); ++d) {
      const int64_t s = t->size(d);
      int64_t& o = out_sizes[d + shift];
      if (s == o || s == 1) continue;
      if (o != 1) return false;
      o = s;
    }
  }
  *out_dim = dim;
  return true;
}

Error resize_to_broadcast(const char* op, Tensor& out, Span<const Tensor* const> inputs) {
  // The common case first: every input already has out's shape.
  bool all_same = true;
  for (const Tensor* t : inputs) all_same = all_same && same_shape(*t, out);
  if (all_same) return Error::Ok;
  int64_t sizes[kTensorMaxDim];
  size_t dim = 0;
  if (!broadcast_sizes(inputs, sizes, &dim)) {
    if (inputs.size() == 3) {
      ETR_FAIL(Error::InvalidArgument, "%s: cannot broadcast %s with %s and %s", op,
               ShapeText(inputs[0]->sizes()).c_str(), ShapeText(inputs[1]->sizes()).c_str(),
               ShapeText(inputs[2]->sizes()).c_str());
    }
    ETR_FAIL(Error::InvalidArgument, "%s: cannot broadcast %s with %s", op,
             ShapeText(inputs[0]->sizes()).c_str(),
             ShapeText(inputs[inputs.size() > 1 ? 1 : 0]->sizes()).c_str());
  }
  return resize_output(op, out, Span<const int64_t>(sizes, dim));
}

bool broadcasts_to(const Tensor& t, Span<const int32_t> sizes) {
  if (t.dim() > sizes.size()) return false;
  const size_t shift = sizes.size() - t.dim();
  for (size_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1 && t.size(d) != sizes[d + shift]) return false;
  }
  return true;
}

void broadcast_strides(const Tensor& t, Span<const int32_t> out_sizes, int64_t* strides) {
  const size_t dim = out_sizes.size();
  const size_t shift = dim - t.dim();
  for (size_t d = 0; d < dim; ++d) {
    if (d < shift || out_sizes[d] == 1 || t.size(d - shift) == 1) {
      strides[d] = 0;
    } else {
      strides[d] = t.stride(d - shift);
    }
  }
}

}  // namespace etr
