// Direct (no im2col, no GEMM) convolution for the first layer of ImageNet
// CNNs: a 3x3 filter, stride 2, padding 1, over a few input channels (an RGB
// image), Float NCHW, groups 1. With K = 27 the im2col GEMM spends most of
// its time building and packing the column matrix; the direct kernel builds
// each input vector once per 8 output pixels and uses it for every output
// channel (conv_direct_avx2.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_math/conv_depthwise.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

struct DirectConvGeom {
  int64_t batch = 0, c_in = 0, h = 0, w = 0;
  int64_t c_out = 0, oh = 0, ow = 0;
};

// Input channels the direct kernel takes at most.
inline constexpr int64_t kDirectConvMaxCin = 4;

// True when conv3x3s2_avx2 computes `g` (a 3x3, stride 2, padding 1,
// dilation 1, groups 1 convolution with oh, ow set): c_in in [1, 4], c_out a
// multiple of 8. False in builds without AVX2.
bool conv3x3s2_supported(const DirectConvGeom& g);

// Scratch for conv3x3s2_avx2 on `threads` threads (a few KiB each).
size_t conv3x3s2_scratch_bytes(const DirectConvGeom& g, size_t threads);

// out[b, co] = bias[co] + sum over ci, taps of weight[co, ci, ki, kj] * the
// zero-padded input, then the epilogue (clamp, SiLU); output rows split over
// `pool` (fewer threads when `scratch`, 64-byte aligned, holds less than
// conv3x3s2_scratch_bytes for all; at least one thread's worth). weight is
// [c_out, c_in, 3, 3]; bias may be null. Only where cpu_features().avx2_fma.
void conv3x3s2_avx2(const DirectConvGeom& g, const float* in, const float* weight,
                    const float* bias, const DepthwiseEpilogue& epilogue, float* out, void* scratch,
                    size_t scratch_bytes, ThreadPool* pool);

// conv3x3s2_avx2's computation with AVX-512F (conv_direct_avx512.cpp; only
// where cpu_features().avx512f): the same contract and scratch
// (conv3x3s2_scratch_bytes covers its conv3x3s2_avx512_slot_floats floats
// per thread; it has no shared part).
size_t conv3x3s2_avx512_slot_floats(const DirectConvGeom& g);
void conv3x3s2_avx512(const DirectConvGeom& g, const float* in, const float* weight,
                      const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                      void* scratch, size_t scratch_bytes, ThreadPool* pool);

}  // namespace opt
}  // namespace etr
