#include "kernels/portable/util/copy_util.h"

#include <cstdio>

namespace etr {

bool coalesce_plan(const CopyPlan& in, CopyPlan* out) {
  out->ndim = 0;
  for (size_t d = 0; d < in.ndim; ++d) {
    if (in.sizes[d] == 0) return false;
  }
  for (size_t d = 0; d < in.ndim; ++d) {
    const int64_t size = in.sizes[d];
    if (size == 1) continue;
    if (out->ndim > 0) {
      // Merge into the previous (outer) loop when it steps exactly over this one.
      const size_t p = out->ndim - 1;
      if (out->dst_strides[p] == in.dst_strides[d] * size &&
          out->src_strides[p] == in.src_strides[d] * size) {
        out->sizes[p] *= size;
        out->dst_strides[p] = in.dst_strides[d];
        out->src_strides[p] = in.src_strides[d];
        continue;
      }
    }
    out->add(size, in.dst_strides[d], in.src_strides[d]);
  }
  return true;
}

namespace {

template <size_t N>
void copy_rows(const CopyPlan& plan, char* dst, const char* src) {
  for_each_row(plan, [&](int64_t doff, int64_t soff, int64_t n, int64_t ds, int64_t ss) {
    char* d = dst + doff * static_cast<int64_t>(N);
    const char* s = src + soff * static_cast<int64_t>(N);
    if (ds == 1 && ss == 1) {
      std::memcpy(d, s, static_cast<size_t>(n) * N);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(d + i * ds * static_cast<int64_t>(N), s + i * ss * static_cast<int64_t>(N), N);
    }
  });
}

void copy_rows_any(const CopyPlan& plan, char* dst, const char* src, size_t elem) {
  const int64_t e = static_cast<int64_t>(elem);
  for_each_row(plan, [&](int64_t doff, int64_t soff, int64_t n, int64_t ds, int64_t ss) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + (doff + i * ds) * e, src + (soff + i * ss) * e, elem);
    }
  });
}

}  // namespace

void run_copy(const CopyPlan& plan, void* dst, const void* src, size_t elem_size) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  switch (elem_size) {
    case 1:
      copy_rows<1>(plan, d, s);
      break;
    case 2:
      copy_rows<2>(plan, d, s);
      break;
    case 4:
      copy_rows<4>(plan, d, s);
      break;
    case 8:
      copy_rows<8>(plan, d, s);
      break;
    default:
      copy_rows_any(plan, d, s, elem_size);
      break;
  }
}

bool run_convert_copy(const CopyPlan& plan, void* dst, ScalarType dst_type, const void* src,
                      ScalarType src_type) {
  if (dst_type == src_type) {
    if (!is_valid(dst_type)) return false;
    run_copy(plan, dst, src, element_size(dst_type));
    return true;
  }
  bool inner_ok = false;
  const bool outer_ok = dispatch_real_and_bool(dst_type, [&](auto dtag) {
    using To = typename decltype(dtag)::type;
    inner_ok = dispatch_real_and_bool(src_type, [&](auto stag) {
      using From = typename decltype(stag)::type;
      To* d = static_cast<To*>(dst);
      const From* s = static_cast<const From*>(src);
      for_each_row(plan, [&](int64_t doff, int64_t soff, int64_t n, int64_t ds, int64_t ss) {
        for (int64_t i = 0; i < n; ++i) {
          d[doff + i * ds] = convert_value<To>(s[soff + i * ss]);
        }
      });
    });
  });
  return outer_ok && inner_ok;
}

bool fill_with_scalar(const CopyPlan& plan, void* dst, ScalarType dtype, const Scalar& value) {
  return dispatch_real_and_bool(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.is_floating() ? convert_value<T>(value.to_double())
                                    : convert_value<T>(value.to_int());
    T* d = static_cast<T*>(dst);
    for_each_row(plan, [&](int64_t doff, int64_t, int64_t n, int64_t ds, int64_t) {
      for (int64_t i = 0; i < n; ++i) d[doff + i * ds] = v;
    });
  });
}

bool wrap_dim(int64_t dim, size_t rank, size_t* out) {
  const int64_t r = rank == 0 ? 1 : static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) return false;
  *out = static_cast<size_t>(dim < 0 ? dim + r : dim);
  return true;
}

void contiguous_strides(const int64_t* sizes, size_t n, int64_t* strides) {
  int64_t running = 1;
  for (size_t i = n; i-- > 0;) {
    strides[i] = running;
    // Sizes of valid tensors multiply without overflow; keep going past 0.
    if (sizes[i] != 0) running *= sizes[i];
  }
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

void copy_same_shape(Tensor& dst, const Tensor& src) {
  CopyPlan plan;
  for (size_t d = 0; d < src.dim(); ++d) plan.add(src.size(d), dst.stride(d), src.stride(d));
  run_copy(plan, dst.mutable_data(), src.const_data(), src.element_size());
}

bool copy_reshape(Tensor& dst, const Tensor& src) {
  const bool dst_default = is_default_layout(dst);
  const bool src_default = is_default_layout(src);
  if (!dst_default && !src_default) return false;
  // Walk the non-default side through its strides and the other side
  // row-major over the same (logical) sizes.
  const Tensor& walk = dst_default ? src : dst;
  int64_t sizes[kTensorMaxDim];
  int64_t flat[kTensorMaxDim];
  for (size_t d = 0; d < walk.dim(); ++d) sizes[d] = walk.size(d);
  contiguous_strides(sizes, walk.dim(), flat);
  CopyPlan plan;
  for (size_t d = 0; d < walk.dim(); ++d) {
    plan.add(sizes[d], dst_default ? flat[d] : dst.stride(d),
             dst_default ? src.stride(d) : flat[d]);
  }
  run_copy(plan, dst.mutable_data(), src.const_data(), src.element_size());
  return true;
}

bool check_copy_dtypes(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& out) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_valid(self.dtype()), Error::InvalidType,
                            "%s: invalid input dtype %d", op, static_cast<int>(self.dtype()));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, self.dtype() == out.dtype(), Error::InvalidType,
                            "%s: out dtype %s differs from input dtype %s", op,
                            to_string(out.dtype()), to_string(self.dtype()));
  return true;
}

bool resize_out(KernelContext& ctx, const char* op, Tensor& out, const int64_t* sizes, size_t n) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, n == out.dim(), Error::InvalidArgument,
                            "%s: out has rank %zu, expected %s (rank %zu)", op, out.dim(),
                            shape_str(Span<const int64_t>(sizes, n)).c_str(), n);
  const Error e = resize_to(out, sizes, n);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, e == Error::Ok, e, "%s: cannot resize out %s to %s", op,
                            shape_str(out).c_str(),
                            shape_str(Span<const int64_t>(sizes, n)).c_str());
  return true;
}

bool resize_out_like(KernelContext& ctx, const char* op, Tensor& out, const Tensor& like) {
  int64_t sizes[kTensorMaxDim];
  for (size_t d = 0; d < like.dim(); ++d) sizes[d] = like.size(d);
  return resize_out(ctx, op, out, sizes, like.dim());
}

bool wrap_dim_checked(KernelContext& ctx, const char* op, int64_t dim, size_t rank, size_t* out) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, wrap_dim(dim, rank, out), Error::InvalidArgument,
                            "%s: dim %lld out of range for a %zu-d tensor", op,
                            static_cast<long long>(dim), rank);
  return true;
}

namespace {
template <typename I>
ShapeStr format_shape(Span<const I> sizes) {
  ShapeStr s;
  size_t pos = 0;
  const size_t cap = sizeof(s.text);
  s.text[pos++] = '[';
  size_t i = 0;
  for (; i < sizes.size() && pos + 24 < cap; ++i) {
    const int n = std::snprintf(s.text + pos, cap - pos, i == 0 ? "%lld" : ",%lld",
                                static_cast<long long>(sizes[i]));
    if (n > 0) pos += static_cast<size_t>(n);
  }
  if (i < sizes.size()) {
    s.text[pos++] = '.';
    s.text[pos++] = '.';
  }
  s.text[pos++] = ']';
  s.text[pos] = '\0';
  return s;
}
}  // namespace

ShapeStr shape_str(Span<const int32_t> sizes) { return format_shape(sizes); }
ShapeStr shape_str(Span<const int64_t> sizes) { return format_shape(sizes); }

}  // namespace etr
