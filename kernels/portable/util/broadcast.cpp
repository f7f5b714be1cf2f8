#include "kernels/portable/util/broadcast.h"

#include <cstdio>

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
  if (out.dim() != dim) {
    ETR_FAIL(Error::InvalidArgument, "%s: out has rank %zu but the broadcast shape %s has rank %zu",
             op, out.dim(), ShapeText(Span<const int64_t>(sizes, dim)).c_str(), dim);
  }
  const Error e = resize_tensor(out, Span<const int64_t>(sizes, dim));
  if (e != Error::Ok) {
    ETR_FAIL(e, "%s: cannot resize out from %s to %s", op, ShapeText(out.sizes()).c_str(),
             ShapeText(Span<const int64_t>(sizes, dim)).c_str());
  }
  return Error::Ok;
}

Error resize_like(const char* op, Tensor& out, const Tensor& like) {
  if (out.dim() != like.dim()) {
    ETR_FAIL(Error::InvalidArgument, "%s: out has rank %zu, expected rank %zu (shape %s)", op,
             out.dim(), like.dim(), ShapeText(like.sizes()).c_str());
  }
  const Error e = resize_tensor(out, like.sizes());
  if (e != Error::Ok) {
    ETR_FAIL(e, "%s: cannot resize out from %s to %s", op, ShapeText(out.sizes()).c_str(),
             ShapeText(like.sizes()).c_str());
  }
  return Error::Ok;
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

namespace {
template <typename I>
void render(Span<const I> sizes, char* text, size_t cap) {
  size_t n = 0;
  text[n++] = '[';
  for (size_t i = 0; i < sizes.size() && n + 24 < cap; ++i) {
    const int w = std::snprintf(text + n, cap - n, i == 0 ? "%lld" : ",%lld",
                                static_cast<long long>(sizes[i]));
    if (w > 0) n += static_cast<size_t>(w);
  }
  if (n + 2 > cap) n = cap - 2;
  text[n++] = ']';
  text[n] = '\0';
}
}  // namespace

ShapeText::ShapeText(Span<const int32_t> sizes) { render(sizes, text_, sizeof(text_)); }
ShapeText::ShapeText(Span<const int64_t> sizes) { render(sizes, text_, sizeof(text_)); }

}  // namespace etr
