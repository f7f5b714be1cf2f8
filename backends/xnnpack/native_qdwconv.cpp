#include "backends/xnnpack/native_qdwconv.h"

#include <cmath>

#include "backends/xnnpack/native_qdwconv_internal.h"
#include "kernels/cpu_math/cpu_features.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace xnnpack {
namespace {

// One output pixel, channels [c0, channels) (scalar).
void pixel_generic(const QDwConvWeights& w, const int8_t* const* taps, int8_t* y_px, size_t c0) {
  const size_t cp = qdw_padded_channels(w.channels);
  const uint32_t slots = (w.taps + 1) / 2 * 2;
  for (size_t c = c0; c < w.channels; ++c) {
    int32_t acc = w.bias[c];
    for (uint32_t t = 0; t < slots; ++t)
      acc += static_cast<int32_t>(taps[t][c]) * w.w[(t / 2) * cp * 2 + c * 2 + t % 2];
    y_px[c] = qdw::requantize(acc, w.requant[c], w);
  }
}

// Output rows [r0, r1) of all images (row r = image r / out_h, oy r % out_h),
// kPixels output pixels at a time.
void rows(const DwConvShape& s, const int8_t* x, const QDwConvWeights& w, int8_t* y, size_t r0,
          size_t r1, QDwPath path) {
  const size_t C = s.channels;
  const bool avx2 = path != QDwPath::Scalar && opt::cpu_features().avx2_fma;
  const bool vnni = (path == QDwPath::Best || path == QDwPath::Pixels) && w.wvnni != nullptr;
  const bool columns = path == QDwPath::Best && w.wvnni != nullptr && w.wcol != nullptr &&
                       w.kernel_h == s.kernel_h && w.kernel_w == s.kernel_w &&
                       qdw_columns_usable(s.channels, s.kernel_h, s.kernel_w, s.stride_w,
                                          s.dilation_h, s.dilation_w);
  qdw::TapPtrs taps[qdw::kPixels];
  int8_t* y_px[qdw::kPixels];
  // The zero-weight slots of the last pair or group of 4.
  for (int q = 0; q < qdw::kPixels; ++q) {
    for (uint32_t t = w.taps; t < (w.taps + 3) / 4 * 4; ++t) taps[q][t] = w.pad_row;
  }
  // Tap t's offset from the window's first tap, for windows inside the image.
  size_t off[kQDwMaxTaps];
  for (uint32_t ky = 0; ky < s.kernel_h; ++ky) {
    for (uint32_t kx = 0; kx < s.kernel_w; ++kx) {
      off[ky * s.kernel_w + kx] = (static_cast<size_t>(ky) * s.dilation_h * s.in_w +
                                   static_cast<size_t>(kx) * s.dilation_w) *
                                  C;
    }
  }
  const int64_t span_w = static_cast<int64_t>(s.kernel_w - 1) * s.dilation_w;
  for (size_t r = r0; r < r1; ++r) {
    const size_t n = r / s.out_h, oy = r % s.out_h;
    const int8_t* x_img = x + n * s.in_h * s.in_w * C;
    int8_t* y_row = y + r * s.out_w * C;
    // The input row of each vertical tap (null: outside the image).
    const int8_t* row_of[kQDwMaxTaps];
    for (uint32_t ky = 0; ky < s.kernel_h; ++ky) {
      const int64_t iy = static_cast<int64_t>(oy * s.stride_h + ky * s.dilation_h) - s.pad_top;
      row_of[ky] = iy >= 0 && iy < static_cast<int64_t>(s.in_h)
                       ? x_img + static_cast<size_t>(iy) * s.in_w * C
                       : nullptr;
    }
    bool rows_inside = true;
    for (uint32_t ky = 0; ky < s.kernel_h; ++ky) rows_inside = rows_inside && row_of[ky] != nullptr;
    // The column kernel writes the whole blocks of 32 channels; the pixel
    // loop below the rest.
    const size_t c_done = columns ? qdw::row_columns_vnni(s, w, row_of, y_row) : 0;
    if (c_done == C) continue;
    for (size_t ox0 = 0; ox0 < s.out_w; ox0 += qdw::kPixels) {
      const int count = static_cast<int>(
          s.out_w - ox0 < static_cast<size_t>(qdw::kPixels) ? s.out_w - ox0 : qdw::kPixels);
      for (int q = 0; q < count; ++q) {
        const size_t ox = ox0 + static_cast<size_t>(q);
        y_px[q] = y_row + ox * C;
        const int64_t ix0 = static_cast<int64_t>(ox * s.stride_w) - s.pad_left;
        if (rows_inside && ix0 >= 0 && ix0 + span_w < static_cast<int64_t>(s.in_w)) {
          const int8_t* base = row_of[0] + static_cast<size_t>(ix0) * C;
          for (uint32_t t = 0; t < w.taps; ++t) taps[q][t] = base + off[t];
          continue;
        }
        for (uint32_t kx = 0; kx < s.kernel_w; ++kx) {
          const int64_t ix = static_cast<int64_t>(ox * s.stride_w + kx * s.dilation_w) - s.pad_left;
          const bool inside = ix >= 0 && ix < static_cast<int64_t>(s.in_w);
          for (uint32_t ky = 0; ky < s.kernel_h; ++ky) {
            taps[q][ky * s.kernel_w + kx] = inside && row_of[ky] != nullptr
                                                ? row_of[ky] + static_cast<size_t>(ix) * C
                                                : w.pad_row;
          }
        }
      }
      const size_t c0 = c_done != 0 ? c_done : (vnni ? qdw::pixels_vnni(w, taps, y_px, count) : 0);
      if (c0 == C || (avx2 && qdw::pixels_avx2(w, taps, y_px, count, c0))) continue;
      for (int q = 0; q < count; ++q) pixel_generic(w, taps[q], y_px[q], c0);
    }
  }
}

}  // namespace

void qdw_pack(const int8_t* w, const int32_t* bias, const float* requant, size_t channels,
              uint32_t taps, int32_t input_zero_point, int16_t* w16, int32_t* bias32,
              float* requant_out, int8_t* pad_row) {
  const size_t cp = qdw_padded_channels(channels);
  for (size_t i = 0; i < qdw_packed_elements(channels, taps); ++i) w16[i] = 0;
  for (size_t c = 0; c < cp; ++c) {
    bias32[c] = 0;
    requant_out[c] = 0.0f;
  }
  for (size_t c = 0; c < channels; ++c) {
    // Modular int32 arithmetic: XNNPACK folds the zero point into the bias
    // the same way, and the sums agree with it bit for bit.
    uint32_t b = bias != nullptr ? static_cast<uint32_t>(bias[c]) : 0u;
    for (uint32_t t = 0; t < taps; ++t) {
      const int32_t wt = w[static_cast<size_t>(t) * channels + c];
      w16[(t / 2) * cp * 2 + c * 2 + t % 2] = static_cast<int16_t>(wt);
      b -= static_cast<uint32_t>(input_zero_point * wt);
    }
    bias32[c] = static_cast<int32_t>(b);
    requant_out[c] = requant[c];
    pad_row[c] = static_cast<int8_t>(input_zero_point);
  }
}

bool qdw_vnni_usable() { return opt::cpu_features().avx512_vnni && qdw::vnni_compiled(); }

bool qdw_columns_usable(size_t channels, uint32_t kernel_h, uint32_t kernel_w, uint32_t stride_w,
                        uint32_t dilation_h, uint32_t dilation_w) {
  return qdw_vnni_usable() && channels >= 32 && channels < 64 && kernel_h >= 1 && kernel_h <= 4 &&
         kernel_w >= 1 && kernel_w <= 8 && stride_w >= 1 && stride_w <= 2 && dilation_h == 1 &&
         dilation_w == 1;
}

void qdw_pack_vnni_columns(const int8_t* w, size_t channels, uint32_t kernel_h, uint32_t kernel_w,
                           int8_t* wcol) {
  const size_t blocks = channels / 32;
  // The layout of qdw_pack_vnni with group kx holding taps (0, kx) ..
  // (kernel_h - 1, kx) in its slots 0 .. kernel_h - 1.
  for (size_t b = 0; b < blocks; ++b) {
    for (uint32_t kx = 0; kx < kernel_w; ++kx) {
      for (uint32_t v = 0; v < 4; ++v) {
        for (uint32_t l = 0; l < 2; ++l) {
          for (uint32_t j = 0; j < 4; ++j) {
            const size_t ch = b * 32 + l * 16 + v * 4 + j;
            for (uint32_t t = 0; t < 4; ++t) {
              const size_t tap = static_cast<size_t>(t) * kernel_w + kx;
              wcol[((b * kernel_w + kx) * 4 + v) * 32 + l * 16 + j * 4 + t] =
                  t < kernel_h ? w[tap * channels + ch] : 0;
            }
          }
        }
      }
    }
  }
}

void qdw_pack_vnni(const int8_t* w, const int32_t* bias32, const float* requant, size_t channels,
                   uint32_t taps, int8_t* wvnni, int32_t* bias_vnni, float* requant_vnni) {
  const uint32_t groups = (taps + 3) / 4;
  const size_t blocks = channels / 32;
  // Channel 32 b + 16 L + 4 v + j sits in vector v (of 4 per group), 128-bit
  // lane L, slot j (4 taps of one channel per 32-bit slot), and its sum in
  // accumulator v, lane L, slot j: element v * 8 + L * 4 + j of the block.
  for (size_t b = 0; b < blocks; ++b) {
    for (uint32_t v = 0; v < 4; ++v) {
      for (uint32_t l = 0; l < 2; ++l) {
        for (uint32_t j = 0; j < 4; ++j) {
          const size_t ch = b * 32 + l * 16 + v * 4 + j;
          int32_t sum = 0;
          for (uint32_t g = 0; g < groups; ++g) {
            for (uint32_t t = 0; t < 4; ++t) {
              const uint32_t tap = g * 4 + t;
              const int8_t wt = tap < taps ? w[static_cast<size_t>(tap) * channels + ch] : 0;
              wvnni[((b * groups + g) * 4 + v) * 32 + l * 16 + j * 4 + t] = wt;
              sum += wt;
            }
          }
          const size_t e = b * 32 + v * 8 + l * 4 + j;
          bias_vnni[e] = static_cast<int32_t>(static_cast<uint32_t>(bias32[ch]) -
                                              128u * static_cast<uint32_t>(sum));
          requant_vnni[e] = requant[ch];
        }
      }
    }
  }
}

void qs8_depthwise_conv_nhwc(const DwConvShape& s, const int8_t* x, const QDwConvWeights& w,
                             int8_t* y, ThreadPool* pool, QDwPath path) {
  const size_t total_rows = s.batch * s.out_h;
  if (total_rows == 0 || s.out_w == 0 || s.channels == 0) return;
  // About 64K multiply-adds per chunk at least: below that, waking the
  // pool costs more than the split saves.
  const size_t per_row = s.out_w * s.channels * s.kernel_h * s.kernel_w;
  const size_t grain = per_row >= 65536 ? 1 : 65536 / (per_row == 0 ? 1 : per_row);
  parallel_for(pool, total_rows, grain, [&](size_t b, size_t e) { rows(s, x, w, y, b, e, path); });
}

}  // namespace xnnpack
}  // namespace etr
