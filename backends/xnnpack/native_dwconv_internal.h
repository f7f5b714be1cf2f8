// Pieces shared by native_dwconv.cpp and its AVX2 kernel
// (native_dwconv_avx2.cpp): where an output pixel's window reads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/native_dwconv.h"

namespace etr {
namespace xnnpack {
namespace dw {

// Internal linkage: each translation unit keeps the copy compiled with its
// own instruction set (the _avx2.cpp file's may use AVX2 and FMA), so the
// linker never hands the generic file the AVX2 one.
namespace {

// The taps k of a window starting at `origin` (may be negative: padding)
// whose position origin + k * dilation lies in [0, extent): [k0, k1). The
// position grows with k, so they form one range (empty: k0 == k1).
struct TapRange {
  uint32_t k0 = 0, k1 = 0;
};

inline TapRange tap_range(int64_t origin, uint32_t kernel, uint32_t dilation, size_t extent) {
  TapRange t;
  t.k0 = kernel;
  for (uint32_t k = 0; k < kernel; ++k) {
    const int64_t p = origin + static_cast<int64_t>(k) * dilation;
    if (p < 0 || p >= static_cast<int64_t>(extent)) continue;
    if (t.k0 == kernel) t.k0 = k;
    t.k1 = k + 1;
  }
  if (t.k0 > t.k1) t.k0 = t.k1;
  return t;
}

// Where output pixel (oy, ox) reads: its window's origin and the taps inside.
struct Window {
  int64_t iy0 = 0, ix0 = 0;
  TapRange ky, kx;
};

inline Window window_of(const DwConvShape& s, size_t oy, size_t ox) {
  Window win;
  win.iy0 = static_cast<int64_t>(oy * s.stride_h) - s.pad_top;
  win.ix0 = static_cast<int64_t>(ox * s.stride_w) - s.pad_left;
  win.ky = tap_range(win.iy0, s.kernel_h, s.dilation_h, s.in_h);
  win.kx = tap_range(win.ix0, s.kernel_w, s.dilation_w, s.in_w);
  return win;
}

// Offsets (floats) of tap (ky, kx) into the image and into the filter.
inline size_t x_offset(const DwConvShape& s, const Window& win, uint32_t ky, uint32_t kx) {
  const int64_t iy = win.iy0 + static_cast<int64_t>(ky) * s.dilation_h;
  const int64_t ix = win.ix0 + static_cast<int64_t>(kx) * s.dilation_w;
  return (static_cast<size_t>(iy) * s.in_w + static_cast<size_t>(ix)) * s.channels;
}
inline size_t w_offset(const DwConvShape& s, uint32_t ky, uint32_t kx) {
  return (static_cast<size_t>(ky) * s.kernel_w + kx) * s.channels;
}

}  // namespace

// Output pixels [0, out_w) of row oy of one image with AVX2 + FMA: border
// pixels one at a time (32 channels in flight), the interior ones [lo, hi)
// eight at a time with each input pixel loaded once per filter row (3x3
// stride 1, 5x5 stride 1 or 2, channels in blocks of 8), the rest four at a
// time (16 channels). Called only where
// opt::cpu_features().avx2_fma; false (nothing written) in a build whose
// file was compiled without AVX2.
bool row_avx2(const DwConvShape& s, const float* x_img, const float* w, const float* bias,
              size_t oy, size_t lo, size_t hi, float* y_row);

}  // namespace dw
}  // namespace xnnpack
}  // namespace etr
