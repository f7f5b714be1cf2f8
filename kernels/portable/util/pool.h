// Geometry shared by the 2-D pooling kernels (pooling.h): the window
// parameters, PyTorch's output extent rule and the output resize. Inputs are
// [C, H, W] or [N, C, H, W] in the default dim order; pooling runs over
// the last two dims.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/portable/util/checks.h"
#include "runtime/kernel/kernel.h"

namespace etr {

struct PoolGeom {
  int64_t planes = 0;  // N * C (or C)
  int64_t ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// Prepare: self is float or double and 3-D or 4-D, out has self's dtype,
// both in the default dim order.
[[nodiscard]] Error check_pool_operands(const char* op, const Tensor& self, const Tensor& out);

// Reads kernel_size (1 or 2 entries), stride (empty: the kernel size),
// padding and dilation (1 or 2 entries each) into g. False when a list has
// the wrong length. No logging: prepare reports it via check_window.
bool read_window(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                 PoolGeom* g);

// Prepare: the lists are well formed, kernel/stride/dilation positive,
// padding non-negative and at most half the kernel (all <= INT32_MAX).
[[nodiscard]] Error check_window(const char* op, IntArrayRef kernel, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation);

// Run: fills planes/ih/iw from self's sizes; InvalidArgument when a
// non-batch dim is empty (Internal for a rank prepare refuses).
[[nodiscard]] Error read_pool_input(const char* op, const Tensor& self, PoolGeom* g);

// Run: the output extents for g's window (floor or ceil mode);
// InvalidArgument when they are below 1.
[[nodiscard]] Error compute_pool_extent(const char* op, bool ceil_mode, PoolGeom* g);

// Run: resizes an output to self's leading dims followed by [oh, ow].
[[nodiscard]] Error resize_pool_output(const char* op, const Tensor& self, const PoolGeom& g,
                                       Tensor& out);

// First in-range start >= `start` on the dilation grid.
inline int64_t first_valid(int64_t start, int64_t dil) {
  return start >= 0 ? start : start + ((-start + dil - 1) / dil) * dil;
}

// The maximum of output (oh, ow)'s dilated window over one [ih, iw] plane and
// its flattened index; NaN wins, ties keep the first, padding never wins.
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
