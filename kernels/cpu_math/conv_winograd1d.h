// 1-D Winograd convolution: a Float [batch, c_in, w] input convolved with a
// [c_out, c_in, k] filter (stride 1, dilation 1, groups 1, zero padding
// `pad` on both sides), as matrix products over transformed tiles.
// F(m, s) for a run of s taps: each tile of m outputs reads a = m + s - 1
// inputs; per input channel a tile's inputs d become V = B^T d, per output
// channel and input channel the s taps g become U = G g (a values each);
// for each of the a points xi, M_xi^T[tile, co] = sum over ci of
// V_xi^T[tile, ci] * U_xi^T[ci, co] (a GEMM on the engine of gemm.h: the
// tiles fill its 6-row panels, the output channels its 16-column ones, which
// wastes fewer lanes than tiles on the columns for rows of ~100 outputs),
// and each tile's outputs are A^T M (m values) plus the bias, clamped, then
// SiLU'd when asked. a multiplies per m outputs instead of m * s: F(4, 7)
// (a = 10) 2.8x fewer than the direct convolution.
//
// A filter of more than 7 taps is cut into runs of 7 (and the rest: 11 =
// 7 + 4), each its own F(m, s) on the same tiles, the run starting at tap t0
// reading the tile's inputs from t0 on; their points are stacked (F(4, 7) +
// F(4, 4): 10 + 7 = 17 points for 11 taps, where one F(4, 11) would take
// 14 points with errors of 4e-4 of the output's scale). So the transform
// is A^T (m x P), G (P x k) and B^T (P x L) over P points and the tile's
// L = m + k - 1 inputs, block by run.
//
// Each run's matrices are those of Toom-Cook (the transposed linear
// convolution) on the points 0, 1, -1, 2, -2, 1/2, -1/2, 3, -3, ... and
// infinity (the first a - 1 finite ones), built in double
// (winograd1d_matrices). U^T is computed once, in double, and kept as P
// packed B operands of the GEMM (winograd1d_pack_weights).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu_math/conv_depthwise.h"
#include "runtime/core/thread_pool.h"

namespace etr {
namespace opt {

struct Winograd1dGeom {
  int64_t batch = 0, c_in = 0, w = 0;
  int64_t c_out = 0, ow = 0;  // ow = w + 2 * pad - k + 1
  int64_t pad = 0;
  int64_t k = 0;     // filter taps
  int64_t tile = 0;  // outputs per tile (m)
  // The output as [batch, ow, c_out] (channels last: the XNNPACK delegate's
  // layout) instead of [batch, c_out, ow].
  bool out_channels_last = false;
};

// Limits of the transforms the kernels take: inputs per tile L = m + k - 1,
// points P, outputs per tile m, taps per run.
constexpr int64_t kWinograd1dMaxWindow = 16;
constexpr int64_t kWinograd1dMaxPoints = 24;
constexpr int64_t kWinograd1dMaxTile = 8;
constexpr int64_t kWinograd1dRunTaps = 7;

// Points P of F(tile, k) (the runs' m + s - 1 summed).
int64_t winograd1d_points(int64_t k, int64_t tile);

// True when (k, tile) is a transform the kernels take: 2 <= k, 1 <= tile <=
// kWinograd1dMaxTile, k + tile - 1 <= kWinograd1dMaxWindow and P <=
// kWinograd1dMaxPoints.
bool winograd1d_supported(int64_t k, int64_t tile);

// A^T (m x P), G (P x k) and B^T (P x L), row-major, in double, for
// F(tile, k); false when not winograd1d_supported.
bool winograd1d_matrices(int64_t k, int64_t tile, double* at, double* g, double* bt);

// True when conv1d_winograd_avx2 runs in this build and on this CPU
// (AVX2 + FMA); sizes are not checked.
bool winograd1d_available();

// The output tile the convolution kernels use for a layer of c_in -> c_out
// channels, k taps and ow outputs per row (stride 1, dilation 1, groups 1),
// or 0 for none (then the im2col GEMM runs): see the .cpp for the choice.
// 0 where winograd1d_available() is false.
int64_t winograd1d_pick_tile(int64_t c_in, int64_t c_out, int64_t k, int64_t ow);

// Bytes of the transformed, packed weights of a [c_out, c_in, k] filter for
// F(tile, k); 0 when unsupported or the size overflows.
size_t winograd1d_weight_bytes(int64_t c_out, int64_t c_in, int64_t k, int64_t tile);
// Transforms and packs `weight` ([c_out, c_in, k], or with taps_inner false
// [c_out, k, c_in]: the XNNPACK delegate's OHWI filter of a 1-D layer) into
// dst (winograd1d_weight_bytes, 64-byte aligned).
void winograd1d_pack_weights(const float* weight, int64_t c_out, int64_t c_in, int64_t k,
                             int64_t tile, float* dst, bool taps_inner = true);

namespace internal {
// winograd1d_pack_weights' loop with AVX2 (only where winograd1d_available()):
// `gt` is G transposed (k rows of `stride` doubles, zero past the P
// points), `mat` the floats per point's packed operand; writes every
// column panel (columns past c_out zero), not the rest of each `mat`.
// Tap t of (co, ci) at weight[co * c_in * k + ci * ci_step + t * t_step].
void winograd1d_pack_avx2(const float* weight, int64_t c_out, int64_t c_in, int64_t k,
                          int64_t ci_step, int64_t t_step, int64_t points, const double* gt,
                          int64_t stride, size_t mat, float* dst);
}  // namespace internal

// How a call splits its work: each image's tiles in blocks of up to
// `block` tiles; per block the workers transform disjoint input channel
// ranges into one V (point xi's [c_in, lanes] at xi * v_stride, lanes =
// the block's tiles rounded up to 16), then each takes a range of
// `co_range` output channels, in chunks of `co_chunk` through its own M^T
// (point xi's [tiles, co_chunk] at xi * m_stride), a staging row block for
// the output transform and the GEMM's scratch (it packs V^T).
struct Winograd1dPlan {
  int64_t tiles_per_image = 0, blocks_per_image = 0;
  int64_t block = 0, blocks = 0;
  int64_t co_range = 0, co_chunk = 0;
  int64_t v_stride = 0, m_stride = 0;  // floats from one point's V / M^T to the next
  int64_t workers = 1;
  size_t v_bytes = 0;       // shared V (a multiple of 64)
  size_t m_bytes = 0;       // M^T per worker (a multiple of 64)
  size_t stage_bytes = 0;   // output rows per worker (a multiple of 64)
  size_t gemm_bytes = 0;    // GEMM scratch per worker (a multiple of 64)
  size_t worker_bytes = 0;  // the three together
};
Winograd1dPlan plan_winograd1d(const Winograd1dGeom& g, size_t threads);

// Scratch for conv1d_winograd_avx2 on `threads` threads (V, each worker's
// M^T, staging rows and GEMM scratch, alignment slack); 0 when unsupported
// or the size overflows.
size_t winograd1d_scratch_bytes(const Winograd1dGeom& g, size_t threads);

// out = conv(in, weight) + bias, clamped to [e.lo, e.hi], then SiLU when
// e.silu; `packed`: winograd1d_pack_weights of the weight for g.k, g.tile;
// bias may be null. Splits over `pool` (fewer threads when `scratch` holds
// less than all need; false, nothing computed, when it holds less than one
// worker's or the sizes are not taken). Only where winograd1d_available().
bool conv1d_winograd_avx2(const Winograd1dGeom& g, const float* in, const float* packed,
                          const float* bias, const DepthwiseEpilogue& e, float* out, void* scratch,
                          size_t scratch_bytes, ThreadPool* pool);

}  // namespace opt
}  // namespace etr
