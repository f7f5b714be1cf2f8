// Shared by native_qdwconv.cpp and its AVX2 kernel.
#pragma once

#include <cmath>
#include <cstdint>

#include "backends/xnnpack/native_qdwconv.h"

namespace etr {
namespace xnnpack {
namespace qdw {

// XNNPACK 2022's qc8 fp32 requantization of one sum: scale in float, bound
// above by qmax - output_zp, round to nearest even, add the zero point,
// bound below by qmin. Bounding below before rounding gives the same value
// (the bound is an integer) and keeps lrintf in range.
inline int8_t requantize(int32_t acc, float scale, const QDwConvWeights& w) {
  float f = static_cast<float>(acc) * scale;
  const float hi = static_cast<float>(w.output_qmax - w.output_zero_point);
  const float lo = static_cast<float>(w.output_qmin - w.output_zero_point);
  f = f < hi ? f : hi;
  f = f > lo ? f : lo;
  return static_cast<int8_t>(static_cast<int32_t>(std::lrintf(f)) + w.output_zero_point);
}

// The AVX2 kernel: `count` (at most kPixels) output pixels, every channel;
// taps[q][t] points at pixel q's tap t's channel 0 (or at pad_row), taps
// rounded up to pairs; y_px[q] at the pixel's output. Returns false where
// it was not compiled.
constexpr int kPixels = 4;
bool pixels_avx2(const QDwConvWeights& w, const int8_t* const (*taps)[kQDwMaxTaps + 2],
                 int8_t* const* y_px, int count);

}  // namespace qdw
}  // namespace xnnpack
}  // namespace etr
