// fp32 depthwise convolution over NHWC for the XNNPACK delegate's native
// nodes. Debian's 2022 XNNPACK runs a 5x5 depthwise window as one chain of
// 25 dependent FMAs per 8 channels; this kernel keeps four to eight output
// pixels in flight (AVX2+FMA when the CPU has them, a scalar loop otherwise).
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {
class ThreadPool;
namespace xnnpack {

struct DwConvShape {
  size_t batch = 0, in_h = 0, in_w = 0, channels = 0;
  size_t out_h = 0, out_w = 0;
  uint32_t kernel_h = 0, kernel_w = 0;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t dilation_h = 1, dilation_w = 1;
  uint32_t pad_top = 0, pad_left = 0;
  float output_min = -__builtin_inff();
  float output_max = __builtin_inff();
  bool silu = false;  // then y = y * sigmoid(y) after the clamp
};

// y[n, oy, ox, c] = bias[c] + sum over the window of x[n, iy, ix, c] *
// w[ky, kx, c] (taps outside the image count as zero), clamped to
// [output_min, output_max]. w is [kernel_h, kernel_w, channels]; bias may
// be null. The caller has checked the shapes (node_checks.cpp).
void depthwise_conv_nhwc(const DwConvShape& s, const float* x, const float* w, const float* bias,
                         float* y, ThreadPool* pool);

}  // namespace xnnpack
}  // namespace etr
