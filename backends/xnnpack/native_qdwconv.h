// Static int8 depthwise convolution over NHWC for the XNNPACK delegate's
// native nodes (qint8 input and output per tensor, qcint8 filter per
// channel, qcint32 bias), with XNNPACK's qc8 fp32 requantization, so that
// the result is the same bytes XNNPACK's node gives. Debian's 2022 XNNPACK
// multiplies one tap at a time in int32 (vpmulld); this kernel multiplies
// two taps per instruction in int16 (vpmaddwd) where the CPU has AVX2, and
// runs a scalar loop otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/native_dwconv.h"

namespace etr {
class ThreadPool;
namespace xnnpack {

// The filter and requantization prepared once at init (qdw_pack); the
// arrays live in the method allocator, this struct owns nothing.
struct QDwConvWeights {
  size_t channels = 0;
  uint32_t taps = 0;  // kernel_h * kernel_w
  // Taps in pairs (2t, 2t + 1), the last pair's second tap zero when taps is
  // odd: [pairs][channels][2] int16, channels rounded up to 16.
  const int16_t* w = nullptr;
  // bias[c] - input_zero_point * (sum of the channel's taps) [channels
  // rounded up to 16]: the kernel then sums x * w, and a tap outside the
  // image reads `pad_row` (channels bytes of input_zero_point).
  const int32_t* bias = nullptr;
  const float* requant = nullptr;  // [channels rounded up to 16]
  const int8_t* pad_row = nullptr;
  // For the AVX-512 VNNI kernel (null where the CPU lacks it): the filter of
  // the whole blocks of 32 channels in groups of 4 taps (qdw_pack_vnni), and
  // its bias also folded with 128 * (sum of the channel's taps) (the kernel
  // reads x + 128 as unsigned bytes), both in the kernel's channel order.
  const int8_t* wvnni = nullptr;
  const int32_t* bias_vnni = nullptr;
  const float* requant_vnni = nullptr;
  // For the VNNI column kernel (qdw_columns_usable; null elsewhere): the
  // filter of the whole blocks of 32 channels by window column, a column's
  // kernel_h taps (top to bottom, zero-padded to 4) forming one group of 4
  // in wvnni's layout (qdw_pack_vnni_columns). It uses bias_vnni and
  // requant_vnni as they are.
  const int8_t* wcol = nullptr;
  uint32_t kernel_h = 0;
  uint32_t kernel_w = 0;
  int32_t output_zero_point = 0;
  int32_t output_qmin = -128;
  int32_t output_qmax = 127;
};

// Channels rounded up to the kernel's block of 16.
inline size_t qdw_padded_channels(size_t c) { return (c + 15) / 16 * 16; }
// int16 elements of QDwConvWeights::w.
inline size_t qdw_packed_elements(size_t channels, uint32_t taps) {
  return static_cast<size_t>((taps + 1) / 2) * qdw_padded_channels(channels) * 2;
}

// Fills the packed arrays from the payload's filter w[taps][channels]
// (row-major [1, kh, kw, C]), the optional bias[channels] and the
// per-channel requantization scales; w16, bias32 and requant have the sizes
// above, pad_row `channels` bytes.
void qdw_pack(const int8_t* w, const int32_t* bias, const float* requant, size_t channels,
              uint32_t taps, int32_t input_zero_point, int16_t* w16, int32_t* bias32,
              float* requant_out, int8_t* pad_row);

// Whether the AVX-512 VNNI kernel runs here (CPU and build).
bool qdw_vnni_usable();
// Bytes of wvnni and elements of bias_vnni / requant_vnni for `channels`.
inline size_t qdw_vnni_bytes(size_t channels, uint32_t taps) {
  return channels / 32 * static_cast<size_t>((taps + 3) / 4) * 128;
}
inline size_t qdw_vnni_elements(size_t channels) { return channels / 32 * 32; }
// Fills the VNNI arrays from the filter w[taps][channels] and from the
// folded bias and scales qdw_pack made (natural channel order).
void qdw_pack_vnni(const int8_t* w, const int32_t* bias32, const float* requant, size_t channels,
                   uint32_t taps, int8_t* wvnni, int32_t* bias_vnni, float* requant_vnni);

// Whether the VNNI column kernel runs `channels` channels and a window of
// kernel_h x kernel_w with these strides and dilations here: the VNNI
// kernel runs, 32 to 63 channels (one block), kernel_h <= 4, kernel_w <= 8,
// stride_w <= 2, no dilation. For each output row it interleaves each input
// column's kernel_h rows once and every output pixel then sums kernel_w
// such columns; the pixel kernel interleaves each pixel's taps anew and
// sets up its tap pointers per pixel, which dominates with one block
// (MobileNetV2's first depthwise layer: 1.65x faster; from two blocks on
// the pixel kernel is as fast or faster).
bool qdw_columns_usable(size_t channels, uint32_t kernel_h, uint32_t kernel_w, uint32_t stride_w,
                        uint32_t dilation_h, uint32_t dilation_w);
inline size_t qdw_columns_bytes(size_t channels, uint32_t kernel_w) {
  return channels / 32 * static_cast<size_t>(kernel_w) * 128;
}
// Fills wcol (qdw_columns_bytes) from the filter w[kernel_h][kernel_w][channels].
void qdw_pack_vnni_columns(const int8_t* w, size_t channels, uint32_t kernel_h, uint32_t kernel_w,
                           int8_t* wcol);

// Which kernel qs8_depthwise_conv_nhwc runs (tests pick each one): Best
// takes the column kernel where w.wcol is set, Pixels the per-pixel VNNI
// kernel even then.
enum class QDwPath { Best, Pixels, Avx2, Scalar };

// y[n, oy, ox, c] = requantize(bias[c] + sum over the window of
// (x[n, iy, ix, c] - input_zero_point) * w[ky, kx, c]) (taps outside the
// image count as zero):
//   clamp(round_even(min(float(acc) * requant[c], qmax - output_zp)) + output_zp, qmin, qmax)
// as XNNPACK 2022 computes it. Only s's shape fields are read (not its
// float bounds or silu). The caller has checked the shapes. `path` Best:
// the VNNI column kernel where w.wcol is set (and the shape fits it), else
// the VNNI pixel kernel where w.wvnni is set, else AVX2 where the CPU has
// it, else the scalar loop; Pixels, Avx2 and Scalar cap the choice (for tests).
void qs8_depthwise_conv_nhwc(const DwConvShape& s, const int8_t* x, const QDwConvWeights& w,
                             int8_t* y, ThreadPool* pool, QDwPath path = QDwPath::Best);

// The largest window the kernel takes (kernel_h * kernel_w).
constexpr uint32_t kQDwMaxTaps = 64;

}  // namespace xnnpack
}  // namespace etr
