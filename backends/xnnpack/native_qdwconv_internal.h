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

// Tap slots of a pixel: the taps rounded up to groups of 4, the slots past
// the last tap pointing at pad_row (their weights are zero).
constexpr uint32_t kTapSlots = kQDwMaxTaps + 4;
using TapPtrs = const int8_t* [kTapSlots];

// The AVX2 kernel: `count` (at most kPixels) output pixels, channels
// [c0, channels); taps[q][t] points at pixel q's tap t's channel 0 (or at
// pad_row); y_px[q] at the pixel's output. Returns false where it was not
// compiled.
constexpr int kPixels = 4;
bool pixels_avx2(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px, int count,
                 size_t c0);
// The AVX-512 VNNI kernel: the same for the whole blocks of 32 channels
// (w.wvnni set); returns the channels it wrote (0 where not compiled).
size_t pixels_vnni(const QDwConvWeights& w, const TapPtrs* taps, int8_t* const* y_px, int count);
bool vnni_compiled();
// The VNNI column kernel (w.wcol set, qdw_columns_usable): output row
// `y_row` of image `x_img` (NHWC), the whole blocks of 32 channels;
// row_of[t] is the input row of vertical tap t (null: outside the image).
// Returns the channels it wrote (0 where not compiled).
size_t row_columns_vnni(const DwConvShape& s, const QDwConvWeights& w, const int8_t* const* row_of,
                        int8_t* y_row);

}  // namespace qdw
}  // namespace xnnpack
}  // namespace etr
