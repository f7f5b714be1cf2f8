#include "kernels/portable/util/pool.h"

#include <algorithm>

namespace etr {
namespace {

constexpr int64_t kMaxParam = INT32_MAX;

// Entry i of a 1- or 2-element pooling parameter; an empty list gives `dflt`.
bool pool_param(IntArrayRef list, size_t i, int64_t dflt, int64_t* value) {
  if (list.size() == 0) {
    *value = dflt;
    return true;
  }
  if (list.size() > 2) return false;
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

}  // namespace

Error check_pool_operands(const char* op, const Tensor& self, const Tensor& out) {
  ETR_RETURN_IF_ERROR(check_dtype_in(op, "input", self.dtype(), kFloatingTypes));
  ETR_RETURN_IF_ERROR(check_dtype(op, "out", out, self.dtype()));
  ETR_RETURN_IF_ERROR(check_rank_in(op, "input", self, 3, 4));
  ETR_RETURN_IF_ERROR(check_default_layout(op, "input", self));
  return check_default_layout(op, "out", out);
}

bool read_window(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                 PoolGeom* g) {
  if (kernel.size() != 1 && kernel.size() != 2) return false;
  return pool_param(kernel, 0, 0, &g->kh) && pool_param(kernel, 1, 0, &g->kw) &&
         pool_param(stride, 0, g->kh, &g->sh) && pool_param(stride, 1, g->kw, &g->sw) &&
         pool_param(padding, 0, 0, &g->ph) && pool_param(padding, 1, 0, &g->pw) &&
         pool_param(dilation, 0, 1, &g->dh) && pool_param(dilation, 1, 1, &g->dw);
}

Error check_window(const char* op, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation) {
  PoolGeom g;
  ETR_CHECK_OR_FAIL(read_window(kernel, stride, padding, dilation, &g), Error::InvalidArgument,
                    "%s: kernel_size must have 1 or 2 entries and stride, padding and dilation "
                    "at most 2",
                    op);
  bool ok = g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0 && g.ph >= 0 &&
            g.pw >= 0;
  ok = ok && std::max({g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.ph, g.pw}) <= kMaxParam;
  ETR_CHECK_OR_FAIL(ok, Error::InvalidArgument,
                    "%s: kernel, stride and dilation must be positive and padding non-negative "
                    "(all <= INT32_MAX)",
                    op);
  ETR_CHECK_OR_FAIL(g.ph <= g.kh / 2 && g.pw <= g.kw / 2, Error::InvalidArgument,
                    "%s: padding [%lld,%lld] must be at most half of kernel [%lld,%lld]", op,
                    static_cast<long long>(g.ph), static_cast<long long>(g.pw),
                    static_cast<long long>(g.kh), static_cast<long long>(g.kw));
  return Error::Ok;
}

Error read_pool_input(const char* op, const Tensor& self, PoolGeom* g) {
  const size_t r = self.dim();
  // Safety net: prepare (check_pool_operands) refuses other ranks.
  ETR_CHECK_OR_FAIL(r == 3 || r == 4, Error::Internal, "%s: input rank %zu reached run", op, r);
  bool non_empty = true;
  for (size_t d = r == 4 ? 1 : 0; d < r; ++d) non_empty = non_empty && self.size(d) > 0;
  ETR_CHECK_OR_FAIL(non_empty, Error::InvalidArgument,
                    "%s: input %s must be non-empty except for the batch dim", op,
                    ShapeText(self).c_str());
  g->ih = self.size(r - 2);
  g->iw = self.size(r - 1);
  g->planes = self.size(r - 3) * (r == 4 ? self.size(0) : 1);
  return Error::Ok;
}

Error compute_pool_extent(const char* op, bool ceil_mode, PoolGeom* g) {
  g->oh = pool_extent(g->ih, g->kh, g->ph, g->sh, g->dh, ceil_mode);
  g->ow = pool_extent(g->iw, g->kw, g->pw, g->sw, g->dw, ceil_mode);
  ETR_CHECK_OR_FAIL(g->oh >= 1 && g->ow >= 1, Error::InvalidArgument,
                    "%s: output size is too small for input [%lld,%lld]", op,
                    static_cast<long long>(g->ih), static_cast<long long>(g->iw));
  return Error::Ok;
}

Error resize_pool_output(const char* op, const Tensor& self, const PoolGeom& g, Tensor& out) {
  int64_t sizes[4];
  const size_t r = self.dim();
  for (size_t d = 0; d + 2 < r; ++d) sizes[d] = self.size(d);
  sizes[r - 2] = g.oh;
  sizes[r - 1] = g.ow;
  return resize_output(op, out, Span<const int64_t>(sizes, r));
}

}  // namespace etr
