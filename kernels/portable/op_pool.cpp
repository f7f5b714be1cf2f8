// 2-D pooling over the last two dims of a [C, H, W] or [N, C, H, W] input:
//   aten::max_pool2d_with_indices.out, aten::avg_pool2d.out,
//   aten::_adaptive_avg_pool2d.out.
// Window placement, ceil_mode, padding and divisor rules follow PyTorch;
// sums accumulate in double. Float and double, default layout.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/portable/ops_layout.h"
#include "kernels/portable/util/copy_util.h"
#include "kernels/portable/util/dtype_dispatch.h"

namespace etr {
namespace {

constexpr int64_t kMaxParam = INT32_MAX;

struct PoolGeom {
  int64_t planes = 0;  // N * C (or C)
  int64_t ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// Reads entry i of a 1- or 2-element pooling parameter; an empty list gives
// `dflt` (used for stride, which defaults to the kernel size).
bool pool_param(IntArrayRef list, size_t i, int64_t dflt, int64_t* value) {
  if (list.size() == 0) {
    *value = dflt;
    return true;
  }
  if (list.size() > 2) return false;
  *value = list.size() == 1 ? list[0] : list[i];
  return true;
}

// Common input checks; fills planes/ih/iw.
bool check_pool_input(KernelContext& ctx, const char* op, const Tensor& self, const Tensor& out,
                      PoolGeom* g) {
  const ScalarType t = self.dtype();
  ETR_KERNEL_CHECK_OR_FALSE(ctx, t == ScalarType::Float || t == ScalarType::Double,
                            Error::InvalidType, "%s: unsupported dtype %s (float and double only)",
                            op, to_string(t));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, out.dtype() == t, Error::InvalidType,
                            "%s: out dtype %s differs from input dtype %s", op,
                            to_string(out.dtype()), to_string(t));
  ETR_KERNEL_CHECK_OR_FALSE(ctx, self.dim() == 3 || self.dim() == 4, Error::InvalidArgument,
                            "%s: expected 3-D or 4-D input, got %s", op, shape_str(self).c_str());
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_default_layout(self), Error::NotSupported,
                            "%s: input must have the default dim order", op);
  const size_t r = self.dim();
  bool non_empty = true;
  for (size_t d = r == 4 ? 1 : 0; d < r; ++d) non_empty = non_empty && self.size(d) > 0;
  ETR_KERNEL_CHECK_OR_FALSE(ctx, non_empty, Error::InvalidArgument,
                            "%s: input %s must be non-empty except for the batch dim", op,
                            shape_str(self).c_str());
  g->ih = self.size(r - 2);
  g->iw = self.size(r - 1);
  g->planes = self.size(r - 3) * (r == 4 ? self.size(0) : 1);
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

// Reads kernel/stride/padding/dilation, computes the output extent.
bool prepare_window(KernelContext& ctx, const char* op, IntArrayRef kernel, IntArrayRef stride,
                    IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, PoolGeom* g) {
  ETR_KERNEL_CHECK_OR_FALSE(ctx, kernel.size() == 1 || kernel.size() == 2, Error::InvalidArgument,
                            "%s: kernel_size must have 1 or 2 entries, got %zu", op, kernel.size());
  bool ok = pool_param(kernel, 0, 0, &g->kh) && pool_param(kernel, 1, 0, &g->kw) &&
            pool_param(stride, 0, g->kh, &g->sh) && pool_param(stride, 1, g->kw, &g->sw) &&
            pool_param(padding, 0, 0, &g->ph) && pool_param(padding, 1, 0, &g->pw) &&
            pool_param(dilation, 0, 1, &g->dh) && pool_param(dilation, 1, 1, &g->dw);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, ok, Error::InvalidArgument,
                            "%s: stride, padding and dilation must have at most 2 entries", op);
  ok = g->kh > 0 && g->kw > 0 && g->sh > 0 && g->sw > 0 && g->dh > 0 && g->dw > 0 && g->ph >= 0 &&
       g->pw >= 0;
  ok = ok && std::max({g->kh, g->kw, g->sh, g->sw, g->dh, g->dw, g->ph, g->pw}) <= kMaxParam;
  ETR_KERNEL_CHECK_OR_FALSE(ctx, ok, Error::InvalidArgument,
                            "%s: kernel, stride and dilation must be positive and padding "
                            "non-negative (all <= INT32_MAX)",
                            op);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, g->ph <= g->kh / 2 && g->pw <= g->kw / 2, Error::InvalidArgument,
                            "%s: padding [%lld,%lld] must be at most half of kernel [%lld,%lld]",
                            op, static_cast<long long>(g->ph), static_cast<long long>(g->pw),
                            static_cast<long long>(g->kh), static_cast<long long>(g->kw));
  g->oh = pool_extent(g->ih, g->kh, g->ph, g->sh, g->dh, ceil_mode);
  g->ow = pool_extent(g->iw, g->kw, g->pw, g->sw, g->dw, ceil_mode);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, g->oh >= 1 && g->ow >= 1, Error::InvalidArgument,
                            "%s: output size is too small for input [%lld,%lld]", op,
                            static_cast<long long>(g->ih), static_cast<long long>(g->iw));
  return true;
}

// Resizes an output to the input's leading dims followed by [oh, ow].
bool resize_pool_out(KernelContext& ctx, const char* op, const Tensor& self, const PoolGeom& g,
                     Tensor& out) {
  int64_t sizes[4];
  const size_t r = self.dim();
  for (size_t d = 0; d + 2 < r; ++d) sizes[d] = self.size(d);
  sizes[r - 2] = g.oh;
  sizes[r - 1] = g.ow;
  const Error e = resize_to(out, sizes, r);
  ETR_KERNEL_CHECK_OR_FALSE(ctx, e == Error::Ok, e, "%s: cannot resize output to %s", op,
                            shape_str(Span<const int64_t>(sizes, r)).c_str());
  ETR_KERNEL_CHECK_OR_FALSE(ctx, is_default_layout(out), Error::NotSupported,
                            "%s: outputs must have the default dim order", op);
  return true;
}

// First in-range start >= `start` on the dilation grid.
int64_t first_valid(int64_t start, int64_t dil) {
  return start >= 0 ? start : start + ((-start + dil - 1) / dil) * dil;
}

template <typename T>
void max_pool_plane(const PoolGeom& g, const T* in, T* out, int64_t* idx) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const int64_t h0 = first_valid(oh * g.sh - g.ph, g.dh);
    const int64_t h1 = std::min(oh * g.sh - g.ph + (g.kh - 1) * g.dh + 1, g.ih);
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t w0 = first_valid(ow * g.sw - g.pw, g.dw);
      const int64_t w1 = std::min(ow * g.sw - g.pw + (g.kw - 1) * g.dw + 1, g.iw);
      int64_t best = h0 * g.iw + w0;
      T best_val = -std::numeric_limits<T>::infinity();
      for (int64_t h = h0; h < h1; h += g.dh) {
        for (int64_t w = w0; w < w1; w += g.dw) {
          const T v = in[h * g.iw + w];
          if (v > best_val || std::isnan(v)) {
            best_val = v;
            best = h * g.iw + w;
          }
        }
      }
      out[oh * g.ow + ow] = best_val;
      idx[oh * g.ow + ow] = best;
    }
  }
}

}  // namespace

void max_pool2d_with_indices_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                 bool ceil_mode, Tensor& out, Tensor& indices) {
  constexpr const char* kOp = "aten::max_pool2d_with_indices.out";
  PoolGeom g;
  if (!check_pool_input(ctx, kOp, self, out, &g)) return;
  ETR_KERNEL_CHECK(ctx, indices.dtype() == ScalarType::Long, Error::InvalidType,
                   "%s: indices must be Long, got %s", kOp, to_string(indices.dtype()));
  if (!prepare_window(ctx, kOp, kernel_size, stride, padding, dilation, ceil_mode, &g)) return;
  if (!resize_pool_out(ctx, kOp, self, g, out) || !resize_pool_out(ctx, kOp, self, g, indices)) {
    return;
  }
  dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
    for (int64_t p = 0; p < g.planes; ++p) {
      max_pool_plane(g, self.const_data_ptr<T>() + p * in_plane, out.data_ptr<T>() + p * out_plane,
                     indices.data_ptr<int64_t>() + p * out_plane);
    }
  });
}

namespace {

template <typename T>
void avg_pool_plane(const PoolGeom& g, bool count_include_pad, std::optional<int64_t> divisor,
                    const T* in, T* out) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    int64_t h0 = oh * g.sh - g.ph;
    int64_t h1 = std::min(h0 + g.kh, g.ih + g.ph);
    const int64_t pool_h = h1 - h0;
    h0 = std::max<int64_t>(h0, 0);
    h1 = std::min(h1, g.ih);
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      int64_t w0 = ow * g.sw - g.pw;
      int64_t w1 = std::min(w0 + g.kw, g.iw + g.pw);
      const int64_t pool_size = pool_h * (w1 - w0);
      w0 = std::max<int64_t>(w0, 0);
      w1 = std::min(w1, g.iw);
      if (h0 >= h1 || w0 >= w1) {
        out[oh * g.ow + ow] = T(0);
        continue;
      }
      double sum = 0;
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(in[h * g.iw + w]);
      }
      const int64_t div = divisor.has_value() ? *divisor
                          : count_include_pad ? pool_size
                                              : (h1 - h0) * (w1 - w0);
      out[oh * g.ow + ow] = convert_value<T>(sum / static_cast<double>(div));
    }
  }
}

}  // namespace

void avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, Tensor& out) {
  constexpr const char* kOp = "aten::avg_pool2d.out";
  PoolGeom g;
  if (!check_pool_input(ctx, kOp, self, out, &g)) return;
  ETR_KERNEL_CHECK(ctx, !divisor_override.has_value() || *divisor_override != 0,
                   Error::InvalidArgument, "%s: divisor_override must be non-zero", kOp);
  const int64_t one[1] = {1};
  if (!prepare_window(ctx, kOp, kernel_size, stride, padding, IntArrayRef(one, 1), ceil_mode, &g) ||
      !resize_pool_out(ctx, kOp, self, g, out)) {
    return;
  }
  dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
    for (int64_t p = 0; p < g.planes; ++p) {
      avg_pool_plane(g, count_include_pad, divisor_override,
                     self.const_data_ptr<T>() + p * in_plane, out.data_ptr<T>() + p * out_plane);
    }
  });
}

namespace {

template <typename T>
void adaptive_avg_plane(const PoolGeom& g, const T* in, T* out) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const int64_t h0 = (oh * g.ih) / g.oh;
    const int64_t h1 = ((oh + 1) * g.ih + g.oh - 1) / g.oh;
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t w0 = (ow * g.iw) / g.ow;
      const int64_t w1 = ((ow + 1) * g.iw + g.ow - 1) / g.ow;
      double sum = 0;
      for (int64_t h = h0; h < h1; ++h) {
        for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(in[h * g.iw + w]);
      }
      out[oh * g.ow + ow] = convert_value<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
    }
  }
}

}  // namespace

void adaptive_avg_pool2d_out(KernelContext& ctx, const Tensor& self, IntArrayRef output_size,
                             Tensor& out) {
  constexpr const char* kOp = "aten::_adaptive_avg_pool2d.out";
  PoolGeom g;
  if (!check_pool_input(ctx, kOp, self, out, &g)) return;
  ETR_KERNEL_CHECK(ctx, output_size.size() == 2, Error::InvalidArgument,
                   "%s: output_size must have 2 entries, got %zu", kOp, output_size.size());
  ETR_KERNEL_CHECK(ctx,
                   output_size[0] >= 0 && output_size[1] >= 0 && output_size[0] <= kMaxParam &&
                       output_size[1] <= kMaxParam,
                   Error::InvalidArgument, "%s: output_size [%lld,%lld] out of range", kOp,
                   static_cast<long long>(output_size[0]), static_cast<long long>(output_size[1]));
  g.oh = output_size[0];
  g.ow = output_size[1];
  if (!resize_pool_out(ctx, kOp, self, g, out)) return;
  dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
    for (int64_t p = 0; p < g.planes; ++p) {
      adaptive_avg_plane(g, self.const_data_ptr<T>() + p * in_plane,
                         out.data_ptr<T>() + p * out_plane);
    }
  });
}

}  // namespace etr
