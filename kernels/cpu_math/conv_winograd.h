// Winograd convolution: a 3x3, stride 1, dilation 1, groups 1 convolution
// (any padding), Float NCHW, as matrix products over transformed tiles.
// F(4x4, 3x3): 36 products, 2.25 multiplies per output and input channel
// instead of 9; F(2x2, 3x3): 16 products, 4 multiplies (for small images,
// where 4x4 tiles would be too few to fill the GEMM's 16-wide panels).
//
// The output is cut into m x m tiles (m = 4 or 2), each reading an a x a
// input patch (a = m + 2). Per input channel, a patch d becomes
// V = B^T d B and per output channel the 3x3 filter g becomes U = G g G^T
// (a x a each); then for each of the a * a positions xi,
// M_xi[co, tile] = sum over ci of U_xi[co, ci] * V_xi[ci, tile] (a GEMM on
// the engine of gemm.h), and each tile's output is A^T M A (m x m) plus the
// bias, clamped, then SiLU'd when asked. B^T, G and A^T are those of Lavin
// and Gray, "Fast Algorithms for Convolutional Neural Networks"
// (interpolation points 0, 1, -1, 2, -2 and infinity for F(4x4, 3x3); 0, 1,
// -1 and infinity for F(2x2, 3x3)).
//
// U is computed once, in double, and kept as a * a packed GEMM operands
// (winograd_pack_weights); the input transform writes V straight into the
// GEMM's packed-B layout, so no operand is copied per call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_math/conv_depthwise.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

struct WinogradGeom {
  int64_t batch = 0, c_in = 0, h = 0, w = 0;
  int64_t c_out = 0, oh = 0, ow = 0;
  int64_t ph = 0, pw = 0;
  int64_t tile = 4;  // output tile: 4 for F(4x4, 3x3), 2 for F(2x2, 3x3)
};

// True when conv3x3_winograd_avx2 runs in this build and on this CPU
// (AVX2 + FMA); sizes are not checked.
bool winograd_available();

// Bytes of the transformed, packed weights of a [c_out, c_in, 3, 3] filter
// for output tiles of `tile` (4 or 2); 0 when the size overflows.
size_t winograd_weight_bytes(int64_t c_out, int64_t c_in, int64_t tile);
// Transforms and packs `weight` ([c_out, c_in, 3, 3]) into dst
// (winograd_weight_bytes, 64-byte aligned).
void winograd_pack_weights(const float* weight, int64_t c_out, int64_t c_in, int64_t tile,
                           float* dst);

// How a call splits its work (see the .cpp); `block`: tiles per block
// (a multiple of 16; 0 picks by the cache budget).
struct WinogradPlan {
  int64_t tiles_h = 0, tiles_w = 0, tiles = 0;  // per image: tiles_h x tiles_w; all images: tiles
  int64_t block = 0, blocks = 0;                // tiles per block, blocks
  // Output channels per work item and the items per block (more than one
  // when the blocks do not share evenly between the threads).
  int64_t co_block = 0, co_blocks = 0;
  int64_t co_chunk = 0;  // output channels per batch of 36 products within an item
  // Floats from one position's V (c_in x block) or M (co_chunk x block) to
  // the next: 64 bytes more than the matrix, so the positions' rows do not
  // all fall into the same cache sets.
  int64_t v_stride = 0, m_stride = 0;
  int64_t workers = 1;      // threads that take work items
  size_t worker_bytes = 0;  // scratch per worker (a multiple of 64)
};
WinogradPlan plan_winograd(const WinogradGeom& g, size_t threads, int64_t block = 0);

// The first work item (block-major, p.co_blocks per block) of worker j of
// `workers`: the cut where the running cost of the items before it (lanes
// computed x 6-row panels of output channels) is nearest to j equal shares,
// so a partial last block or uneven channel ranges do not leave one worker
// with more than its share. 0 for j <= 0, every item for j >= workers.
int64_t winograd_first_item(const WinogradGeom& g, const WinogradPlan& p, int64_t j,
                            int64_t workers);

// Scratch for conv3x3_winograd_avx2 on `threads` threads (plan's workers
// times its worker_bytes, plus alignment slack); 0 when the size overflows.
size_t winograd_scratch_bytes(const WinogradGeom& g, size_t threads);

// out = conv(in, weight) + bias, clamped to [e.lo, e.hi], then SiLU when
// e.silu; `packed`: winograd_pack_weights of the weight for g.tile; bias
// may be null.
// Work items (blocks of tiles x output channel ranges; with fewer blocks
// than threads, each block's input channels and then its output channels;
// a single panel of 9 to 16 tiles on two threads, 8 of its lanes each)
// are split over `pool` (fewer threads when
// `scratch` holds less than all need; at least one worker's worth, else
// nothing is computed and false is returned). Only where
// winograd_available().
bool conv3x3_winograd_avx2(const WinogradGeom& g, const float* in, const float* packed,
                           const float* bias, const DepthwiseEpilogue& e, float* out, void* scratch,
                           size_t scratch_bytes, ThreadPool* pool, int64_t block = 0);

}  // namespace opt
}  // namespace etr
