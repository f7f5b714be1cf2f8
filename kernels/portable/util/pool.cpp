#include "kernels/portable/util/pool.h"

#include <algorithm>

#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

constexpr int64_t kMaxParam = INT32_MAX;

// Entry i of a 1- or `spatial`-element pooling parameter; an empty list gives `dflt`.
bool pool_param(IntArrayRef list, size_t spatial, size_t i, int64_t dflt, int64_t* value) {
  if (list.size() == 0) {
    *value = dflt;
    return true;
  }
  if (list.size() != 1 && list.size() != spatial) return false;
  *value = list.size() == 1 ? list[0] : list[i];
  return true;
}

// PyTorch's pooling output extent (floor or ceil mode); -1 when invalid.
int64_t pool_extent(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  if (num < 0) return -1;
  int64_t out = num / stride + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The (d, h, w) fields of parameter `p` of g, in spatial order: for 2-D
// only h and w.
void spatial_fields(PoolGeom* g, size_t spatial, int p, int64_t* dst[3]) {
  int64_t* all[4][3] = {{&g->kd, &g->kh, &g->kw},
                        {&g->sd, &g->sh, &g->sw},
                        {&g->pd, &g->ph, &g->pw},
                        {&g->dd, &g->dh, &g->dw}};
  for (size_t i = 0; i < spatial; ++i) dst[i] = all[p][3 - spatial + i];
}

// Calls fn(n, c, od, oh, ow) for every output position; channels innermost
// when `c_inner` (a channels-last input), else planes outermost.
template <typename Fn>
void for_each_output(const PoolGeom& g, bool c_inner, Fn fn) {
  for (int64_t n = 0; n < g.batch; ++n) {
    if (c_inner) {
      for (int64_t od = 0; od < g.od; ++od) {
        for (int64_t oh = 0; oh < g.oh; ++oh) {
          for (int64_t ow = 0; ow < g.ow; ++ow) {
            for (int64_t c = 0; c < g.channels; ++c) fn(n, c, od, oh, ow);
          }
        }
      }
    } else {
      for (int64_t c = 0; c < g.channels; ++c) {
        for (int64_t od = 0; od < g.od; ++od) {
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            for (int64_t ow = 0; ow < g.ow; ++ow) fn(n, c, od, oh, ow);
          }
        }
      }
    }
  }
}

inline int64_t offset(const PoolStrides& s, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) {
  return n * s.n + c * s.c + d * s.d + h * s.h + w * s.w;
}

// True when channels are closer together in memory than the last spatial
// dim: pool with channels innermost.
bool channels_inner(const PoolStrides& s, const PoolGeom& g) { return g.channels > 1 && s.c < s.w; }

template <typename T>
void max_pool_typed(const PoolGeom& g, const Tensor& self, size_t spatial, Tensor& out,
                    Tensor& indices) {
  const PoolStrides si = pool_strides(self, spatial), so = pool_strides(out, spatial);
  const PoolStrides sx = pool_strides(indices, spatial);
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  int64_t* ix = indices.data_ptr<int64_t>();
  auto one = [&](int64_t n, int64_t c, int64_t od, int64_t oh, int64_t ow) {
    const T* plane = in + n * si.n + c * si.c;
    const int64_t d0 = first_valid(od * g.sd - g.pd, g.dd);
    const int64_t d1 = std::min(od * g.sd - g.pd + (g.kd - 1) * g.dd + 1, g.id);
    const int64_t h0 = first_valid(oh * g.sh - g.ph, g.dh);
    const int64_t h1 = std::min(oh * g.sh - g.ph + (g.kh - 1) * g.dh + 1, g.ih);
    const int64_t w0 = first_valid(ow * g.sw - g.pw, g.dw);
    const int64_t w1 = std::min(ow * g.sw - g.pw + (g.kw - 1) * g.dw + 1, g.iw);
    int64_t best = (d0 * g.ih + h0) * g.iw + w0;
    // -inf for floating types, the lowest value for integers (the window's
    // first element then wins ties at that value, as in PyTorch).
    T best_val = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                      : std::numeric_limits<T>::lowest();
    for (int64_t d = d0; d < d1; d += g.dd) {
      for (int64_t h = h0; h < h1; h += g.dh) {
        const T* row = plane + d * si.d + h * si.h;
        for (int64_t w = w0; w < w1; w += g.dw) {
          const T v = row[w * si.w];
          if (v > best_val || v != v) {  // NaN wins (never for integers)
            best_val = v;
            best = (d * g.ih + h) * g.iw + w;
          }
        }
      }
    }
    o[offset(so, n, c, od, oh, ow)] = best_val;
    ix[offset(sx, n, c, od, oh, ow)] = best;
  };
  for_each_output(g, channels_inner(si, g), one);
}

template <typename T>
void avg_pool_typed(const PoolGeom& g, const Tensor& self, size_t spatial, bool count_include_pad,
                    std::optional<int64_t> divisor, Tensor& out) {
  const PoolStrides si = pool_strides(self, spatial), so = pool_strides(out, spatial);
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  auto one = [&](int64_t n, int64_t c, int64_t od, int64_t oh, int64_t ow) {
    const AvgWindow wd = avg_window(od, g.sd, g.pd, g.kd, g.id);
    const AvgWindow wh = avg_window(oh, g.sh, g.ph, g.kh, g.ih);
    const AvgWindow ww = avg_window(ow, g.sw, g.pw, g.kw, g.iw);
    T& dst = o[offset(so, n, c, od, oh, ow)];
    if (wd.lo >= wd.hi || wh.lo >= wh.hi || ww.lo >= ww.hi) {
      dst = T(0);
      return;
    }
    const T* plane = in + n * si.n + c * si.c;
    double sum = 0;
    for (int64_t d = wd.lo; d < wd.hi; ++d) {
      for (int64_t h = wh.lo; h < wh.hi; ++h) {
        const T* row = plane + d * si.d + h * si.h;
        for (int64_t w = ww.lo; w < ww.hi; ++w) sum += static_cast<double>(row[w * si.w]);
      }
    }
    // The padded volume multiplies three extents of up to 2^31 (huge kernels
    // with huge padding), so it is formed in double; the clipped one is at
    // most a plane's element count.
    const double padded = static_cast<double>(wd.padded) * static_cast<double>(wh.padded) *
                          static_cast<double>(ww.padded);
    const double div =
        divisor.has_value() ? static_cast<double>(*divisor)
        : count_include_pad
            ? padded
            : static_cast<double>((wd.hi - wd.lo) * (wh.hi - wh.lo) * (ww.hi - ww.lo));
    dst = convert<T>(sum / div);
  };
  for_each_output(g, channels_inner(si, g), one);
}

template <typename T>
void adaptive_avg_typed(const PoolGeom& g, const Tensor& self, size_t spatial, Tensor& out) {
  const PoolStrides si = pool_strides(self, spatial), so = pool_strides(out, spatial);
  const T* in = self.const_data_ptr<T>();
  T* o = out.data_ptr<T>();
  auto lo = [](int64_t i, int64_t in_size, int64_t out_size) { return (i * in_size) / out_size; };
  auto hi = [](int64_t i, int64_t in_size, int64_t out_size) {
    return ((i + 1) * in_size + out_size - 1) / out_size;
  };
  auto one = [&](int64_t n, int64_t c, int64_t od, int64_t oh, int64_t ow) {
    const int64_t d0 = lo(od, g.id, g.od), d1 = hi(od, g.id, g.od);
    const int64_t h0 = lo(oh, g.ih, g.oh), h1 = hi(oh, g.ih, g.oh);
    const int64_t w0 = lo(ow, g.iw, g.ow), w1 = hi(ow, g.iw, g.ow);
    const T* plane = in + n * si.n + c * si.c;
    double sum = 0;
    for (int64_t d = d0; d < d1; ++d) {
      for (int64_t h = h0; h < h1; ++h) {
        const T* row = plane + d * si.d + h * si.h;
        for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(row[w * si.w]);
      }
    }
    o[offset(so, n, c, od, oh, ow)] =
        convert<T>(sum / static_cast<double>((d1 - d0) * (h1 - h0) * (w1 - w0)));
  };
  for_each_output(g, channels_inner(si, g), one);
}

}  // namespace

PoolStrides pool_strides(const Tensor& t, size_t spatial) {
  PoolStrides s;
  const size_t r = t.dim();
  if (r < spatial + 1) return s;
  s.w = t.stride(r - 1);
  s.h = t.stride(r - 2);
  if (spatial == 3) s.d = t.stride(r - 3);
  s.c = t.stride(r - spatial - 1);
  if (r == spatial + 2) s.n = t.stride(0);
  return s;
}

Error check_pool_operands(const char* op, const Tensor& self, const Tensor& out, size_t spatial,
                          DtypeSet dtypes) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "input", self.dtype(), dtypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", self, spatial + 1, spatial + 2));
  return check_rank(op, "out", out, self.dim());
}

bool read_window(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                 PoolGeom* g, size_t spatial) {
  if (spatial != 2 && spatial != 3) return false;
  if (kernel.size() != 1 && kernel.size() != spatial) return false;
  int64_t* k[3];
  int64_t* s[3];
  int64_t* p[3];
  int64_t* d[3];
  spatial_fields(g, spatial, 0, k);
  spatial_fields(g, spatial, 1, s);
  spatial_fields(g, spatial, 2, p);
  spatial_fields(g, spatial, 3, d);
  for (size_t i = 0; i < spatial; ++i) {
    if (!pool_param(kernel, spatial, i, 0, k[i]) || !pool_param(stride, spatial, i, *k[i], s[i]) ||
        !pool_param(padding, spatial, i, 0, p[i]) || !pool_param(dilation, spatial, i, 1, d[i])) {
      return false;
    }
  }
  return true;
}

Error check_window(const char* op, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation, size_t spatial) {
  PoolGeom g;
  ETR_CHECK_OR_FAIL(read_window(kernel, stride, padding, dilation, &g, spatial),
                    Error::InvalidArgument,
                    "%s: kernel_size must have 1 or %zu entries and stride, padding and dilation "
                    "0, 1 or %zu",
                    op, spatial, spatial);
  bool ok = g.kd > 0 && g.kh > 0 && g.kw > 0 && g.sd > 0 && g.sh > 0 && g.sw > 0 && g.dd > 0 &&
            g.dh > 0 && g.dw > 0 && g.pd >= 0 && g.ph >= 0 && g.pw >= 0;
  ok = ok && std::max({g.kd, g.kh, g.kw, g.sd, g.sh, g.sw, g.dd, g.dh, g.dw, g.pd, g.ph, g.pw}) <=
                 kMaxParam;
  ETR_CHECK_OR_FAIL(ok, Error::InvalidArgument,
                    "%s: kernel, stride and dilation must be positive and padding non-negative "
                    "(all <= INT32_MAX)",
                    op);
  ETR_CHECK_OR_FAIL(
      g.pd <= g.kd / 2 && g.ph <= g.kh / 2 && g.pw <= g.kw / 2, Error::InvalidArgument,
      "%s: padding [%lld,%lld,%lld] must be at most half of kernel [%lld,%lld,%lld]", op,
      static_cast<long long>(g.pd), static_cast<long long>(g.ph), static_cast<long long>(g.pw),
      static_cast<long long>(g.kd), static_cast<long long>(g.kh), static_cast<long long>(g.kw));
  return Error::Ok;
}

Error read_pool_input(const char* op, const Tensor& self, PoolGeom* g, size_t spatial) {
  const size_t r = self.dim();
  // Safety net: prepare (check_pool_operands) refuses other ranks.
  ETR_CHECK_OR_FAIL((spatial == 2 || spatial == 3) && (r == spatial + 1 || r == spatial + 2),
                    Error::Internal, "%s: input rank %zu reached run", op, r);
  bool non_empty = true;
  for (size_t d = r == spatial + 2 ? 1 : 0; d < r; ++d) non_empty = non_empty && self.size(d) > 0;
  ETR_CHECK_OR_FAIL(non_empty, Error::InvalidArgument,
                    "%s: input %s must be non-empty except for the batch dim", op,
                    ShapeText(self).c_str());
  g->ih = self.size(r - 2);
  g->iw = self.size(r - 1);
  g->id = spatial == 3 ? self.size(r - 3) : 1;
  g->channels = self.size(r - spatial - 1);
  g->batch = r == spatial + 2 ? self.size(0) : 1;
  g->planes = g->channels * g->batch;
  return Error::Ok;
}

Error compute_pool_extent(const char* op, bool ceil_mode, PoolGeom* g) {
  g->od = pool_extent(g->id, g->kd, g->pd, g->sd, g->dd, ceil_mode);
  g->oh = pool_extent(g->ih, g->kh, g->ph, g->sh, g->dh, ceil_mode);
  g->ow = pool_extent(g->iw, g->kw, g->pw, g->sw, g->dw, ceil_mode);
  ETR_CHECK_OR_FAIL(g->od >= 1 && g->oh >= 1 && g->ow >= 1, Error::InvalidArgument,
                    "%s: output size is too small for input [%lld,%lld,%lld] (depth 1 for 2-D)", op,
                    static_cast<long long>(g->id), static_cast<long long>(g->ih),
                    static_cast<long long>(g->iw));
  return Error::Ok;
}

Error resize_pool_output(const char* op, const Tensor& self, const PoolGeom& g, Tensor& out,
                         size_t spatial) {
  int64_t sizes[5];
  const size_t r = self.dim();
  // Safety net: the rank was checked by read_pool_input.
  ETR_CHECK_OR_FAIL(r >= spatial && r <= 5, Error::Internal, "%s: input rank %zu reached run", op,
                    r);
  for (size_t d = 0; d + spatial < r; ++d) sizes[d] = self.size(d);
  if (spatial == 3) sizes[r - 3] = g.od;
  sizes[r - 2] = g.oh;
  sizes[r - 1] = g.ow;
  return resize_output(op, out, Span<const int64_t>(sizes, r));
}

Error read_adaptive_output_size(const char* op, IntArrayRef output_size, size_t spatial,
                                PoolGeom* g) {
  ETR_CHECK_OR_FAIL(output_size.size() == spatial, Error::Internal,
                    "%s: malformed output_size (prepare refuses it)", op);
  bool ok = true;
  for (size_t i = 0; i < spatial; ++i) {
    ok = ok && output_size[i] >= 0 && output_size[i] <= INT32_MAX;
  }
  ETR_CHECK_OR_FAIL(ok, Error::InvalidArgument, "%s: output_size %s out of range", op,
                    ShapeText(output_size).c_str());
  g->od = spatial == 3 ? output_size[0] : 1;
  g->oh = output_size[spatial - 2];
  g->ow = output_size[spatial - 1];
  return Error::Ok;
}

Error max_pool_compute(const char* op, const Tensor& self, const PoolGeom& g, size_t spatial,
                       Tensor& out, Tensor& indices) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {&out}));
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, ScalarType::Long, {&indices}));
  const bool known = dispatch_real(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_typed<T>(g, self, spatial, out, indices);
  });
  return check_dispatched(op, known, self.dtype());
}

Error avg_pool_compute(const char* op, const Tensor& self, const PoolGeom& g, size_t spatial,
                       bool count_include_pad, std::optional<int64_t> divisor, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {&out}));
  // Safety net: prepare refuses a zero divisor_override.
  ETR_CHECK_OR_FAIL(!divisor.has_value() || *divisor != 0, Error::Internal,
                    "%s: zero divisor reached run", op);
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_typed<T>(g, self, spatial, count_include_pad, divisor, out);
  });
  return check_dispatched(op, known, self.dtype());
}

Error adaptive_avg_pool_compute(const char* op, const Tensor& self, const PoolGeom& g,
                                size_t spatial, Tensor& out) {
  ETR_RETURN_IF_ERROR(check_operand_dtypes(op, self.dtype(), {&out}));
  const bool known = dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg_typed<T>(g, self, spatial, out);
  });
  return check_dispatched(op, known, self.dtype());
}

Error max_pool_prepare(const char* op, const Tensor& self, IntArrayRef kernel_size,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                       const Tensor& out, const Tensor& indices, size_t spatial, DtypeSet dtypes) {
  ETR_RETURN_IF_ERROR(check_pool_operands(op, self, out, spatial, dtypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "indices", indices, ScalarType::Long));
  ETR_RETURN_IF_ERROR(check_rank(op, "indices", indices, self.dim()));
  return check_window(op, kernel_size, stride, padding, dilation, spatial);
}

void max_pool_run(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                  Tensor& out, Tensor& indices, size_t spatial) {
  const char* op = ctx.op_name();
  PoolGeom g;
  ETR_KERNEL_TRY(ctx, read_pool_input(op, self, &g, spatial));
  ETR_KERNEL_CHECK(ctx, read_window(kernel_size, stride, padding, dilation, &g, spatial),
                   Error::Internal, "%s: malformed window (prepare refuses it)", op);
  ETR_KERNEL_TRY(ctx, compute_pool_extent(op, ceil_mode, &g));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, out, spatial));
  ETR_KERNEL_TRY(ctx, resize_pool_output(op, self, g, indices, spatial));
  ETR_KERNEL_TRY(ctx, max_pool_compute(op, self, g, spatial, out, indices));
}

}  // namespace etr
