// The loop both depthwise reference tests share: every output of an NHWC
// depthwise convolution, in output order, as a sum over the taps that fall
// inside the image (padding taps skipped).
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/native_dwconv.h"

namespace etr {

// For each output (batch, row, column, channel, in that order) calls
// begin(c), then tap(acc, x_index, w_index) for each tap inside the image
// (x_index into the NHWC input, w_index into the [kh][kw][C] filter), then
// end(acc, c).
template <typename Begin, typename Tap, typename End>
void for_each_dw_output(const xnnpack::DwConvShape& s, Begin begin, Tap tap, End end) {
  const size_t C = s.channels;
  for (size_t n = 0; n < s.batch; ++n) {
    for (size_t oy = 0; oy < s.out_h; ++oy) {
      for (size_t ox = 0; ox < s.out_w; ++ox) {
        for (size_t c = 0; c < C; ++c) {
          auto acc = begin(c);
          for (uint32_t ky = 0; ky < s.kernel_h; ++ky) {
            for (uint32_t kx = 0; kx < s.kernel_w; ++kx) {
              const int64_t iy =
                  static_cast<int64_t>(oy * s.stride_h + ky * s.dilation_h) - s.pad_top;
              const int64_t ix =
                  static_cast<int64_t>(ox * s.stride_w + kx * s.dilation_w) - s.pad_left;
              if (iy < 0 || ix < 0 || iy >= static_cast<int64_t>(s.in_h) ||
                  ix >= static_cast<int64_t>(s.in_w))
                continue;
              tap(acc,
                  ((n * s.in_h + static_cast<size_t>(iy)) * s.in_w + static_cast<size_t>(ix)) * C +
                      c,
                  (ky * s.kernel_w + kx) * C + c);
            }
          }
          end(acc, c);
        }
      }
    }
  }
}

}  // namespace etr
