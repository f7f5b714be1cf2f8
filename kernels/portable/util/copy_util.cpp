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
    case 1: copy_rows<1>(plan, d, s); break;
    case 2: copy_rows<2>(plan, d, s); break;
    case 4: copy_rows<4>(plan, d, s); break;
    case 8: copy_rows<8>(plan, d, s); break;
    default: copy_rows_any(plan, d, s, elem_size); break;
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
          d[doff + i * ds] = convert<To>(read_elem(s, soff + i * ss));
        }
      });
    });
  });
  return outer_ok && inner_ok;
}

bool fill_with_scalar(const CopyPlan& plan, void* dst, ScalarType dtype, const Scalar& value) {
  return dispatch_real_and_bool(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = scalar_to<T>(value);
    T* d = static_cast<T*>(dst);
    for_each_row(plan, [&](int64_t doff, int64_t, int64_t n, int64_t ds, int64_t) {
      for (int64_t i = 0; i < n; ++i) d[doff + i * ds] = v;
    });
  });
}

void contiguous_strides(const int64_t* sizes, size_t n, int64_t* strides) {
  int64_t running = 1;
  for (size_t i = n; i-- > 0;) {
    strides[i] = running;
    // Sizes of valid tensors multiply without overflow; keep going past 0.
    if (sizes[i] != 0) running *= sizes[i];
  }
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

void copy_range(const Tensor& self, size_t dim, int64_t start, int64_t len, int64_t step,
                bool drop_dim, Tensor& out) {
  if (len == 0 || self.numel() == 0) return;
  CopyPlan plan;
  for (size_t d = 0, od = 0; d < self.dim(); ++d) {
    if (d != dim) {
      plan.add(self.size(d), out.stride(od++), self.stride(d));
    } else if (!drop_dim) {
      // step <= size whenever len > 1, so the product cannot overflow.
      plan.add(len, out.stride(od++), len > 1 ? self.stride(d) * step : 0);
    }
  }
  const char* src = static_cast<const char*>(self.const_data()) +
                    start * self.stride(dim) * static_cast<int64_t>(self.element_size());
  run_copy(plan, out.mutable_data(), src, self.element_size());
}

namespace {

// The sizes of self with dim `dim` set to `len` (or removed when drop_dim)
// into sizes (kTensorMaxDim long); returns their count.
size_t range_sizes(const Tensor& self, size_t dim, int64_t len, bool drop_dim, int64_t* sizes) {
  size_t n = 0;
  for (size_t d = 0; d < self.dim(); ++d) {
    if (d != dim) {
      sizes[n++] = self.size(d);
    } else if (!drop_dim) {
      sizes[n++] = len;
    }
  }
  return n;
}

}  // namespace

Error check_range_output(const char* op, const Tensor& self, bool drop_dim, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  return check_rank(op, "out", out, drop_dim ? self.dim() - 1 : self.dim());
}

Error resize_range_output(const char* op, const Tensor& self, size_t dim, int64_t len,
                          bool drop_dim, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {&out}));
  int64_t sizes[kTensorMaxDim];
  const size_t n = range_sizes(self, dim, len, drop_dim, sizes);
  return resize_output(op, out, Span<const int64_t>(sizes, n));
}

}  // namespace etr
