// im2col for the optimized convolution: a tile of output pixels of one
// group's input channels, laid out as the B operand of the convolution GEMM
// (rows: channel, kernel row, kernel column; columns: output pixels).
#pragma once

#include <cstdint>

#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

struct Im2colGeom {
  int64_t channels = 0;  // input channels of one group
  int64_t h = 1, w = 0, oh = 1, ow = 0;
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// dst[(c * kh + ki) * kw + kj][j] = in[c, oy*sh - ph + ki*dh, ox*sw - pw + kj*dw]
// (zero outside the input) for the output pixels n0 + j = oy * ow + ox,
// j in [0, nt); dst rows are nt floats apart. `in` is the group's first
// channel plane. Rows are split over `pool`.
void im2col_tile(const Im2colGeom& g, const float* in, int64_t n0, int64_t nt, float* dst,
                 ThreadPool* pool);

// The same tile laid out as a packed B operand of the GEMM (util/gemm.h,
// packed_b_bytes(rows, nt) bytes at dst; rows = channels * kh * kw): column
// panels of 16, element (r, j) at (j / 16) * 16 * rows + r * 16 + j % 16,
// columns past nt zero. The GEMM then reads it without packing B itself.
void im2col_tile_packed(const Im2colGeom& g, const float* in, int64_t n0, int64_t nt, float* dst,
                        ThreadPool* pool);

// True when patch_rows takes g: no padding and no dilation, so every
// kernel row of a patch is kw contiguous input floats (a ViT's 16x16 stride
// 16 patch embedding among others).
bool patch_rows_supported(const Im2colGeom& g);

// The transpose of im2col_tile, row-major: dst[j][(c * kh + ki) * kw + kj]
// = in[c, oy*sh + ki, ox*sw + kj] for the output pixels n0 + j = oy * ow +
// ox, j in [0, nt) (rows channels * kh * kw floats apart), built from
// kw-float copies; pixels split over `pool`. Only where
// patch_rows_supported(g). The product X^T W^T then reads it in place.
void patch_rows(const Im2colGeom& g, const float* in, int64_t n0, int64_t nt, float* dst,
                ThreadPool* pool);

// dst[x] = src[2 * x] for x in [0, n), reading src[0 .. 2n - 2] only: the
// stride-2 rows of im2col_tile (conv_im2col_avx2.cpp; only where
// cpu_features().avx2_fma).
void copy_stride2_avx2(const float* src, int64_t n, float* dst);

}  // namespace opt
}  // namespace etr
