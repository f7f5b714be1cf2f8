// uint8 bilinear resizing, byte for byte as PyTorch's CPU kernel
// (UpSampleKernel.cpp, its separable uint8 path after PIL-SIMD), shared by
// upsample_bilinear2d (antialias off) and _upsample_bilinear2d_aa (on).
//
// Per resized dim, the weights of every output index are computed in double
// and rounded to int16 at one precision p (fractional bits) for the whole
// dim: the largest p < 22 at which the dim's largest weight, times 2^(p+1),
// still rounds below 2^15 (else 22). A pass adds 2^(p-1), the weighted int
// sum of its inputs, shifts right by p and clamps to [0, 255]. The width
// pass runs first and its uint8 result feeds the height pass; a dim whose
// size does not change is not resampled (equal sizes copy).
//
// One known difference: PyTorch's generic loop (used for C > 4, or any C on
// a CPU without AVX2) repeats output row 0 in every row when out is not
// channels-last, its width is 1 and the height changes (the vertical loop
// reads the taps once per inner loop); this kernel gives the values of the
// AVX2 path there, i.e. each row its own taps.
#pragma once

#include <optional>

#include "runtime/kernel/kernel.h"

namespace etr {

// Resizes the [N, C, H, W] uint8 `input` into `out`, already resized to
// [N, C, out_h, out_w]; any dim order for both. The step of a dim is
// (in - 1) / (out - 1) with align_corners (0 when out is 1), else 1 / scale
// for a positive scale, else in / out. Without antialias, output o blends
// the two inputs around step * (o + 0.5) - 0.5 (align_corners: step * o);
// with antialias, it averages a triangle filter of half-width max(step, 1)
// around step * (o + 0.5). The taps live in temp memory (MemoryAllocationFailed
// without enough); an unusable step is InvalidArgument.
Error resample_bilinear_u8(KernelContext& ctx, const char* op, const Tensor& input,
                           bool align_corners, std::optional<double> scale_h,
                           std::optional<double> scale_w, bool antialias, Tensor& out);

}  // namespace etr
