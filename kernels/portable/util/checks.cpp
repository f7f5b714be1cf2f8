#include "kernels/portable/util/checks.h"

#include <cstdio>

namespace etr {

Error check_dtype(const char* op, const char* what, const Tensor& t, ScalarType expected) {
  if (t.dtype() != expected) {
    ETR_FAIL(Error::InvalidType, "%s: %s has dtype %s, expected %s", op, what, to_string(t.dtype()),
             to_string(expected));
  }
  return Error::Ok;
}

Error check_dtype_in(const char* op, const char* what, ScalarType dtype, DtypeSet allowed) {
  if (!allowed.contains(dtype)) {
    char list[160];
    ETR_FAIL(Error::InvalidType, "%s: %s has dtype %s; supported: %s", op, what, to_string(dtype),
             format_dtypes(allowed, list, sizeof(list)));
  }
  return Error::Ok;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

Error check_can_cast(const char* op, ScalarType from, const Tensor& out) {
  if (!can_cast(from, out.dtype())) {
    ETR_FAIL(Error::InvalidType, "%s: result type %s can't be cast to the out dtype %s", op,
             to_string(from), to_string(out.dtype()));
  }
  return Error::Ok;
}

Error check_dispatched(const char* op, bool dispatched, ScalarType dtype) {
  if (!dispatched) {
    ETR_FAIL(Error::Internal, "%s: dtype %s reached a kernel that does not handle it", op,
             to_string(dtype));
  }
  return Error::Ok;
}

Error check_operand_dtypes(const char* op, ScalarType dtype,
                           std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    if (t != nullptr && t->dtype() != dtype) {
      ETR_FAIL(Error::Internal, "%s: operand dtype %s reached a %s kernel unchecked", op,
               to_string(t->dtype()), to_string(dtype));
    }
  }
  return Error::Ok;
}

Error check_rank(const char* op, const char* what, const Tensor& t, size_t rank) {
  if (t.dim() != rank) {
    ETR_FAIL(Error::InvalidArgument, "%s: %s must be %zu-D, got shape %s", op, what, rank,
             ShapeText(t).c_str());
  }
  return Error::Ok;
}

Error check_rank_in(const char* op, const char* what, const Tensor& t, size_t lo, size_t hi) {
  if (t.dim() < lo || t.dim() > hi) {
    ETR_FAIL(Error::InvalidArgument, "%s: %s must have %zu to %zu dims, got shape %s", op, what, lo,
             hi, ShapeText(t).c_str());
  }
  return Error::Ok;
}

bool is_default_layout(const Tensor& t) {
  int64_t running = 1;
  for (size_t i = t.dim(); i-- > 0;) {
    const int64_t s = t.size(i);
    if (s != 1 && t.stride(i) != running) return false;
    if (s != 0) running *= s;
  }
  return true;
}

Error check_default_layout(const char* op, const char* what, const Tensor& t) {
  if (!is_default_layout(t)) {
    ETR_FAIL(Error::NotSupported, "%s: %s must have the default (contiguous) dim order", op, what);
  }
  return Error::Ok;
}

Error check_same_shape(const char* op, const char* what_a, const Tensor& a, const char* what_b,
                       const Tensor& b) {
  if (!same_shape(a, b)) {
    ETR_FAIL(Error::InvalidArgument, "%s: %s %s and %s %s must have the same shape", op, what_a,
             ShapeText(a).c_str(), what_b, ShapeText(b).c_str());
  }
  return Error::Ok;
}

Error wrap_dim(const char* op, int64_t dim, size_t rank, size_t* out) {
  const int64_t r = rank == 0 ? 1 : static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) {
    ETR_FAIL(Error::InvalidArgument, "%s: dim %lld is out of range for a tensor of rank %zu", op,
             static_cast<long long>(dim), rank);
  }
  *out = static_cast<size_t>(dim < 0 ? dim + r : dim);
  return Error::Ok;
}

namespace {

template <typename I>
Error resize_impl(const char* op, Tensor& out, Span<const I> sizes) {
  if (out.dim() != sizes.size()) {
    ETR_FAIL(Error::InvalidArgument, "%s: out has shape %s but the result has shape %s", op,
             ShapeText(out).c_str(), ShapeText(sizes).c_str());
  }
  const Error e = resize_tensor(out, sizes);
  if (e != Error::Ok) {
    ETR_FAIL(e, "%s: cannot resize out from %s to %s", op, ShapeText(out).c_str(),
             ShapeText(sizes).c_str());
  }
  return Error::Ok;
}

template <typename I>
void render(Span<const I> sizes, char* text, size_t cap) {
  size_t n = 0;
  text[n++] = '[';
  size_t i = 0;
  for (; i < sizes.size() && n + 24 < cap; ++i) {
    const int w = std::snprintf(text + n, cap - n, i == 0 ? "%lld" : ",%lld",
                                static_cast<long long>(sizes[i]));
    if (w > 0) n += static_cast<size_t>(w);
  }
  if (i < sizes.size()) {
    text[n++] = '.';
    text[n++] = '.';
  }
  text[n++] = ']';
  text[n] = '\0';
}

}  // namespace

Error resize_output(const char* op, Tensor& out, Span<const int64_t> sizes) {
  return resize_impl(op, out, sizes);
}

Error resize_output(const char* op, Tensor& out, Span<const int32_t> sizes) {
  return resize_impl(op, out, sizes);
}

ShapeText::ShapeText(Span<const int32_t> sizes) { render(sizes, text_, sizeof(text_)); }
ShapeText::ShapeText(Span<const int64_t> sizes) { render(sizes, text_, sizeof(text_)); }

}  // namespace etr
