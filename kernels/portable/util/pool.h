// Geometry and loops shared by the pooling kernels (pooling.h): the window
// parameters, PyTorch's output extent rule, the output resize and the
// window computations. Inputs are [C, *spatial] or [N, C, *spatial] with 2
// (H, W) or 3 (D, H, W) spatial dims, in any dim order: every element is
// addressed through the tensor's strides. A 2-D geometry has id = od = kd =
// 1 (and sd = dd = 1, pd = 0).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "kernels/portable/util/checks.h"
#include "runtime/kernel/kernel.h"

namespace etr {

struct PoolGeom {
  int64_t planes = 0;  // N * C (or C)
  int64_t batch = 1, channels = 0;
  int64_t id = 1, ih = 0, iw = 0, od = 1, oh = 0, ow = 0;
  int64_t kd = 1, kh = 1, kw = 1, sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0;
  int64_t dd = 1, dh = 1, dw = 1;
};

// One dim of an average-pooling window: output i covers [lo, hi) of the
// input (clipped to it), and `padded` positions of the padded input
// (clipped to it: count_include_pad's divisor).
struct AvgWindow {
  int64_t lo, hi, padded;
};
inline AvgWindow avg_window(int64_t i, int64_t stride, int64_t pad, int64_t k, int64_t in_size) {
  int64_t lo = i * stride - pad;
  int64_t hi = lo + k < in_size + pad ? lo + k : in_size + pad;
  const int64_t padded = hi - lo;
  lo = lo > 0 ? lo : 0;
  hi = hi < in_size ? hi : in_size;
  return AvgWindow{lo, hi, padded};
}

// Element strides of a pooling operand as [n, c, d, h, w]; a dim the tensor
// lacks (no batch, no depth) has stride 0.
struct PoolStrides {
  int64_t n = 0, c = 0, d = 0, h = 0, w = 0;
};
PoolStrides pool_strides(const Tensor& t, size_t spatial);

// Max pooling over `spatial` (2 or 3) dims, shared by max_pool2d/3d:
// prepare checks self (one of `dtypes`), out, Long indices of self's rank and
// the window; run reads the geometry, resizes out and indices, computes.
[[nodiscard]] Error max_pool_prepare(const char* op, const Tensor& self, IntArrayRef kernel_size,
                                     IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                     const Tensor& out, const Tensor& indices, size_t spatial,
                                     DtypeSet dtypes);
void max_pool_run(KernelContext& ctx, const Tensor& self, IntArrayRef kernel_size,
                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                  Tensor& out, Tensor& indices, size_t spatial);

// Prepare: self has one of `dtypes` (max pooling: every real type; the
// averages: float or double) and `spatial` + 1 or + 2 dims, out has self's
// dtype. Any dim order.
[[nodiscard]] Error check_pool_operands(const char* op, const Tensor& self, const Tensor& out,
                                        size_t spatial = 2, DtypeSet dtypes = kFloatingTypes);

// Reads kernel_size (1 or `spatial` entries), stride (empty: the kernel
// size), padding and dilation (1 or `spatial` entries each) into g. False
// when a list has the wrong length. No logging: prepare reports it via
// check_window.
bool read_window(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                 PoolGeom* g, size_t spatial = 2);

// Prepare: the lists are well formed, kernel/stride/dilation positive,
// padding non-negative and at most half the kernel (all <= INT32_MAX).
[[nodiscard]] Error check_window(const char* op, IntArrayRef kernel, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, size_t spatial = 2);

// Run: fills planes/batch/channels and the input extents from self's sizes;
// InvalidArgument when a non-batch dim is empty (Internal for a rank
// prepare refuses).
[[nodiscard]] Error read_pool_input(const char* op, const Tensor& self, PoolGeom* g,
                                    size_t spatial = 2);

// Run: the output extents for g's window (floor or ceil mode);
// InvalidArgument when they are below 1.
[[nodiscard]] Error compute_pool_extent(const char* op, bool ceil_mode, PoolGeom* g);

// Run: resizes an output to self's leading dims followed by the output
// extents ([oh, ow] or [od, oh, ow]).
[[nodiscard]] Error resize_pool_output(const char* op, const Tensor& self, const PoolGeom& g,
                                       Tensor& out, size_t spatial = 2);

// Run, after the steps above: the pooled outputs of self into out (and
// indices), written through every operand's strides. Float or double
// (Internal for other dtypes). Indices are flattened per-plane positions
// (d * ih + h) * iw + w, whatever the layout, as in PyTorch.
[[nodiscard]] Error max_pool_compute(const char* op, const Tensor& self, const PoolGeom& g,
                                     size_t spatial, Tensor& out, Tensor& indices);
[[nodiscard]] Error avg_pool_compute(const char* op, const Tensor& self, const PoolGeom& g,
                                     size_t spatial, bool count_include_pad,
                                     std::optional<int64_t> divisor, Tensor& out);
// Adaptive windows [floor(i * in / out), ceil((i + 1) * in / out)) per dim.
[[nodiscard]] Error adaptive_avg_pool_compute(const char* op, const Tensor& self, const PoolGeom& g,
                                              size_t spatial, Tensor& out);

// Run: checks a symbolic output_size list (`spatial` entries, each in
// [0, INT32_MAX]) and stores it as g's output extents.
[[nodiscard]] Error read_adaptive_output_size(const char* op, IntArrayRef output_size,
                                              size_t spatial, PoolGeom* g);

// First in-range start >= `start` on the dilation grid.
inline int64_t first_valid(int64_t start, int64_t dil) {
  return start >= 0 ? start : start + ((-start + dil - 1) / dil) * dil;
}

// The maximum of output (oh, ow)'s dilated window over one contiguous
// [ih, iw] plane and its flattened index; NaN wins, ties keep the first,
// padding never wins. (The 2-D default-layout form, used by the optimized
// library.)
template <typename T>
void max_window(const PoolGeom& g, const T* in, int64_t oh, int64_t ow, T* val, int64_t* idx) {
  const int64_t h0 = first_valid(oh * g.sh - g.ph, g.dh);
  const int64_t h1 = std::min(oh * g.sh - g.ph + (g.kh - 1) * g.dh + 1, g.ih);
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
  *val = best_val;
  *idx = best;
}

}  // namespace etr
