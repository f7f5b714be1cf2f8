// Depthwise 2-D convolution (one filter per channel), Float, NCHW. A 1-D
// convolution is passed with h == kh == 1.
//
// Each channel is processed in bands of output rows: the input rows a band
// needs are copied into scratch with the padding written as zeros and the
// columns split into `sw` phases (column c goes to phase c % sw at c / sw),
// so every tap of every stride reads a contiguous run and the row kernel has
// neither bounds checks nor strided loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

struct DepthwiseGeom {
  int64_t batch = 0, channels = 0;
  int64_t h = 1, w = 0, oh = 1, ow = 0;
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// The band layout and scratch needs for `g` run as `slots` parallel chunks.
struct DepthwisePlan {
  int64_t band_rows = 0;     // output rows per band
  int64_t num_bands = 0;     // per channel
  int64_t in_rows = 0;       // input rows of a full band
  int64_t pitch = 0;         // floats per row of one phase
  size_t slot_floats = 0;    // scratch floats per chunk (band, then one padded row)
  size_t slots = 0;          // parallel chunks (each owns one slot)
  size_t scratch_bytes = 0;  // slots * slot_floats floats + kh * kw offsets; 0: too large
};

// Plans `g` (oh, ow >= 1) for at most `max_slots` chunks.
DepthwisePlan plan_depthwise(const DepthwiseGeom& g, size_t max_slots);

// out[b, c] = bias[c] + sum over taps of weight[c, ki, kj] * padded input.
// `scratch` holds plan.scratch_bytes (64-byte aligned). bias may be null.
void depthwise_conv(const DepthwiseGeom& g, const DepthwisePlan& plan, const float* in,
                    const float* weight, const float* bias, float* out, void* scratch,
                    ThreadPool* pool, bool use_avx2);

// The activation a fused convolution applies to each output (clamp, then
// SiLU when set), for the direct kernels below.
struct DepthwiseEpilogue {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  bool silu = false;
};

// True when depthwise_direct_avx2 computes `g` (sizes set, oh and ow
// included): a square 3x3 or 5x5 filter, padding k / 2, dilation 1, stride 1
// or 2 in both dimensions. False in builds without AVX2.
bool depthwise_direct_supported(const DepthwiseGeom& g);

// Scratch for depthwise_direct_avx2 on `threads` threads (a few KiB per
// thread: the plane edges and rows it reads through zero-padded copies).
size_t depthwise_direct_scratch_bytes(const DepthwiseGeom& g, size_t threads);

// The whole convolution of `g` (depthwise_direct_supported) straight from
// the input, channel planes split over `pool` (on fewer threads when
// `scratch`, 64-byte aligned, holds less than depthwise_direct_scratch_bytes
// for all; at least one thread's worth), with the epilogue applied to every
// output (conv_depthwise_direct_avx2.cpp); only where
// cpu_features().avx2_fma. bias may be null.
void depthwise_direct_avx2(const DepthwiseGeom& g, const float* in, const float* weight,
                           const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                           void* scratch, size_t scratch_bytes, ThreadPool* pool);

// Channel-blocked depthwise kernel for small planes
// (conv_depthwise_c8_avx2.cpp): 8 channels at a time are interleaved into a
// zero-padded [h + 2p][w + 2p][8] copy (8 x 8 register transposes), each
// output pixel is then one vector of 8 channels (one load and one FMA per
// tap, 8 pixels in flight), and the 8 x 8 result blocks are transposed back
// into the channel planes: no per-plane setup (which dominates the flat
// kernel on 7x7 and 14x14 planes), each input vector loaded once per filter
// row for 8 output pixels, and no phase split or per-column masks for
// stride 2 and 5x5 windows. True when it computes `g` (sizes set, oh and
// ow included) and is the faster kernel for it: what
// depthwise_direct_supported takes, channels a multiple of 8, at most
// kDepthwiseC8MaxPlane outputs per plane (1024 for stride 2). False
// without AVX2.
inline constexpr int64_t kDepthwiseC8MaxPlane = 16384;
bool depthwise_c8_supported(const DepthwiseGeom& g);

// True when depthwise_c8_avx2 may write `out` over `in` (the same memory):
// g is depthwise_c8_supported, at stride 1 (each block of 8 planes is
// written over exactly the planes it read) and over whole planes (each
// block's padded copy is complete before any of its outputs is written).
bool depthwise_c8_in_place(const DepthwiseGeom& g);

// Scratch for depthwise_c8_avx2 on `threads` threads (the padded block copy
// per thread: the whole plane up to 512 KiB, else a band of rows).
size_t depthwise_c8_scratch_bytes(const DepthwiseGeom& g, size_t threads);

// The whole convolution of `g` (depthwise_c8_supported), channel blocks of
// 8 split over `pool` (fewer threads when `scratch`, 64-byte aligned, holds
// less than depthwise_c8_scratch_bytes for all; at least one thread's
// worth), the epilogue applied to every output. bias may be null.
void depthwise_c8_avx2(const DepthwiseGeom& g, const float* in, const float* weight,
                       const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                       void* scratch, size_t scratch_bytes, ThreadPool* pool);

// One band of depthwise_c8_avx2 for a caller that makes the input rows as
// it goes (a fused expansion -> depthwise block): output rows [y0, y0 +
// rows) of every channel plane of `g` (depthwise_c8_band_supported),
// on the calling thread. Input row iy of channel c is read at
// in + c * in_stride + (iy - in_row0) * g.w, for the rows the band reads
// inside [0, g.h) (rows outside are zeros); `wk` holds the weights as
// depthwise_c8_pack_weights leaves them (32-byte aligned); `pad` holds
// depthwise_c8_band_floats(g, rows) floats (32-byte aligned) whose
// contents are zero before the first call (the border stays zero).
// True when depthwise_c8_band_avx2 computes `g` (sizes set): what
// depthwise_direct_supported takes, channels a multiple of 8, batch 1.
bool depthwise_c8_band_supported(const DepthwiseGeom& g);
size_t depthwise_c8_band_floats(const DepthwiseGeom& g, int64_t rows);
// weight [channels][kh * kw] into wk [channels / 8][kh * kw][8].
void depthwise_c8_pack_weights(const DepthwiseGeom& g, const float* weight, float* wk);
void depthwise_c8_band_avx2(const DepthwiseGeom& g, const float* in, int64_t in_stride,
                            int64_t in_row0, int64_t y0, int64_t rows, const float* wk,
                            const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                            float* pad);
// `rows` output rows: out[r * out_stride + x] = bias + sum_t w[t] *
// in[r * in_stride + x + off[t]], x in [0, n).
void depthwise_rows_generic(const float* in, int64_t in_stride, const int64_t* off, const float* w,
                            int64_t taps, float bias, float* out, int64_t out_stride, int64_t n,
                            int64_t rows);
// The same with AVX2+FMA (conv_depthwise_avx2.cpp); only where
// cpu_features().avx2_fma.
void depthwise_rows_avx2(const float* in, int64_t in_stride, const int64_t* off, const float* w,
                         int64_t taps, float bias, float* out, int64_t out_stride, int64_t n,
                         int64_t rows);
// dst[c] = src[c - pw] where 0 <= c - pw < w, else 0, for c in [0, len) (AVX2).
void pad_row_avx2(const float* src, int64_t w, int64_t pw, float* dst, int64_t len);
// even[x] = src[2x], odd[x] = src[2x + 1] for x in [0, n) (AVX2).
void deinterleave2_avx2(const float* src, float* even, float* odd, int64_t n);

}  // namespace opt
}  // namespace etr
