// Direct grouped 2-D convolution (1 < groups, a few channels per group:
// RegNet's 3x3 layers with groups of 8), Float NCHW. Per group the im2col
// GEMM has 8 rows (output channels) and K = 72: too few rows for the GEMM's
// tiles, and packing the column matrix costs as much as the product. Here
// each output channel block of 8 is one AVX2 vector: per filter tap, one
// vector of weights times the input value of 8 output pixels (broadcast),
// accumulated in 8 registers, so each weight vector is loaded once per 8
// pixels and each input value once per 8 output channels
// (conv_grouped_avx2.cpp). A 1-D convolution is passed with h == kh == 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_math/conv_depthwise.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

struct GroupedConvGeom {
  int64_t batch = 0, c_in = 0, h = 1, w = 0;
  int64_t c_out = 0, oh = 1, ow = 0;
  int64_t groups = 1;
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// True when conv_grouped_avx2 computes `g` (sizes set, oh and ow included):
// groups >= 2, output channels per group a multiple of 8, at most 64 input
// channels per group, every size in range. False in builds without AVX2.
bool conv_grouped_supported(const GroupedConvGeom& g);

// Floats of the weights in the kernel's order (conv_grouped_pack).
size_t conv_grouped_packed_floats(const GroupedConvGeom& g);

// weight [c_out, c_in / groups, kh, kw] into the kernel's order
// ([block of 8 output channels][ci][ki][kj][8]) at dst
// (conv_grouped_packed_floats), once for constant weights.
void conv_grouped_pack(const GroupedConvGeom& g, const float* weight, float* dst);

// Scratch for conv_grouped_avx2 on `threads` threads: per thread a
// zero-padded copy of one group's input rows, and the weights in the
// kernel's order unless `packed` (the caller passes them packed).
size_t conv_grouped_scratch_bytes(const GroupedConvGeom& g, size_t threads, bool packed);

// out[b, co] = bias[co] + sum over the group's input channels and the taps
// of weight[co, ci, ki, kj] * the zero-padded input, then the epilogue
// (clamp, SiLU). weight is [c_out, c_in / groups, kh, kw], or null when
// `packed` (conv_grouped_pack of the same weights) is given; bias may be null.
// Work (image, group, band of output rows) is split over `pool` (fewer
// threads when `scratch`, 64-byte aligned, holds less than
// conv_grouped_scratch_bytes(g, threads, packed != nullptr) for all; at
// least one thread's worth). Only
// where cpu_features().avx2_fma.
void conv_grouped_avx2(const GroupedConvGeom& g, const float* in, const float* weight,
                       const float* packed, const float* bias, const DepthwiseEpilogue& epilogue,
                       float* out, void* scratch, size_t scratch_bytes, ThreadPool* pool);

// conv_grouped_avx2's copy of a band of one group's input rows
// [iy0, iy0 + rows_in) into `pad` (rows of `pitch` floats, zero outside the
// image, padded column j reading input column j - pw), with AVX-512 masked
// loads and stores (conv_grouped_avx512.cpp); only where
// cpu_features().avx512f.
void conv_grouped_copy_band_avx512(const GroupedConvGeom& g, const float* in, int64_t iy0,
                                   int64_t rows_in, int64_t pitch, float* pad);

}  // namespace opt
}  // namespace etr
