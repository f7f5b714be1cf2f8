// The parts of the Winograd convolution (conv_winograd.h) that need no
// vector ISA: the weight transform and the work plan. The tiles and
// products run in conv_winograd_avx2.cpp.
//
// Plan: the tiles of all images, in row-major order per image, form blocks
// of `block` tiles (whole 16-tile GEMM panels); a block's V (positions x
// c_in x block floats) is sized to stay in the L2 cache while the products
// stream the packed weights past it. A work item is one block and a range
// of output channels; with fewer blocks than threads to share evenly, each
// block is split into one channel range per thread (each thread then
// transforms the block's input itself). Within an item the output channels
// go in chunks of `co_chunk`, so M (positions x co_chunk x block) stays in cache
// from its product to the output transform.
#include "kernels/cpu_math/conv_winograd.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/gemm.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace opt {
namespace {

constexpr int64_t kPanel = 16;  // the GEMM's packed column panel (kGemmNr)
constexpr int64_t kRows = 6;    // the GEMM's packed row panel (kGemmMr)
constexpr int64_t kMaxBlock = 128;
// V of one block, in floats (768 KiB: within a 1 MiB L2 with room for M).
constexpr int64_t kBlockFloats = int64_t{192} << 10;
// M of one chunk, in floats (256 KiB).
constexpr int64_t kChunkFloats = int64_t{64} << 10;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t v, int64_t to) { return ceil_div(v, to) * to; }

// Floats of one position's packed [c_out, c_in] operand (row panels of 6,
// rows past c_out zero), rounded to 64 bytes; 0 on overflow.
size_t matrix_floats(int64_t c_out, int64_t c_in) {
  size_t f = 0;
  if (c_out < 0 || c_in < 0 ||
      !checked_mul(static_cast<size_t>(round_up(c_out, kRows)), static_cast<size_t>(c_in), &f) ||
      f > SIZE_MAX - 16) {
    return 0;
  }
  return (f + 15) / 16 * 16;
}

// Positions (a * a) for output tiles of `tile`.
int64_t positions(int64_t tile) { return (tile + 2) * (tile + 2); }

// G of F(2x2, 3x3): U = G g G^T.
constexpr double kG2[4][3] = {
    {1, 0, 0},
    {0.5, 0.5, 0.5},
    {0.5, -0.5, 0.5},
    {0, 0, 1},
};

// G of F(4x4, 3x3).
constexpr double kG4[6][3] = {
    {1.0 / 4, 0, 0},
    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
    {1.0 / 24, 1.0 / 12, 1.0 / 6},
    {1.0 / 24, -1.0 / 12, 1.0 / 6},
    {0, 0, 1},
};

}  // namespace

size_t winograd_weight_bytes(int64_t c_out, int64_t c_in, int64_t tile) {
  const size_t f = matrix_floats(c_out, c_in);
  size_t bytes = 0;
  if (f == 0 || (tile != 2 && tile != 4) ||
      !checked_mul(f, static_cast<size_t>(positions(tile)) * sizeof(float), &bytes)) {
    return 0;
  }
  return bytes;
}

void winograd_pack_weights(const float* weight, int64_t c_out, int64_t c_in, int64_t tile,
                           float* dst) {
  const size_t mat = matrix_floats(c_out, c_in);
  const int a = static_cast<int>(tile) + 2;
  const double(*kG)[3] = tile == 2 ? kG2 : kG4;
  std::memset(dst, 0, mat * static_cast<size_t>(a * a) * sizeof(float));
  for (int64_t co = 0; co < c_out; ++co) {
    // Row co of every position's operand: panel co / 6, row co % 6.
    float* row = dst + (co / kRows) * kRows * c_in + co % kRows;
    for (int64_t ci = 0; ci < c_in; ++ci) {
      const float* g = weight + (co * c_in + ci) * 9;
      // t = G g (a x 3), then U = t G^T (a x a), in double, rounded once.
      double t[6][3];
      for (int i = 0; i < a; ++i) {
        for (int j = 0; j < 3; ++j) {
          t[i][j] = kG[i][0] * g[j] + kG[i][1] * g[3 + j] + kG[i][2] * g[6 + j];
        }
      }
      for (int i = 0; i < a; ++i) {
        for (int j = 0; j < a; ++j) {
          const double u = t[i][0] * kG[j][0] + t[i][1] * kG[j][1] + t[i][2] * kG[j][2];
          row[static_cast<size_t>(i * a + j) * mat + static_cast<size_t>(ci * kRows)] =
              static_cast<float>(u);
        }
      }
    }
  }
}

WinogradPlan plan_winograd(const WinogradGeom& g, size_t threads, int64_t block) {
  WinogradPlan p;
  const int64_t t = static_cast<int64_t>(std::max<size_t>(threads, 1));
  if (g.tile != 2 && g.tile != 4) return p;
  const int64_t pos = positions(g.tile);
  p.tiles_h = ceil_div(g.oh, g.tile);
  p.tiles_w = ceil_div(g.ow, g.tile);
  p.tiles = g.batch * p.tiles_h * p.tiles_w;
  if (p.tiles <= 0 || g.c_in <= 0 || g.c_out <= 0) return p;
  int64_t most = block > 0 ? block : kBlockFloats / (pos * g.c_in) / kPanel * kPanel;
  most = std::min(std::max(most, kPanel), kMaxBlock);
  p.blocks = ceil_div(p.tiles, most);
  p.block = round_up(ceil_div(p.tiles, p.blocks), kPanel);
  p.co_block = g.c_out;
  p.co_blocks = 1;
  if (t > 1 && p.blocks % t != 0 && p.blocks < 8 * t) {
    p.co_block = round_up(ceil_div(g.c_out, t), kRows);
    p.co_blocks = ceil_div(g.c_out, p.co_block);
  }
  p.co_chunk =
      std::min(p.co_block, round_up(std::max<int64_t>(1, kChunkFloats / (pos * p.block)), kRows));
  p.workers = std::min(t, p.blocks * p.co_blocks);
  size_t v = 0, m = 0;
  if (!checked_mul(static_cast<size_t>(p.block), static_cast<size_t>(g.c_in), &v) ||
      !checked_mul(static_cast<size_t>(p.block), static_cast<size_t>(p.co_chunk), &m) ||
      v > SIZE_MAX / 2 - kPanel || m > SIZE_MAX / 2 - kPanel) {
    p.worker_bytes = SIZE_MAX;
    return p;
  }
  p.v_stride = static_cast<int64_t>(v) + kPanel;
  p.m_stride = static_cast<int64_t>(m) + kPanel;
  if (!checked_add(v + kPanel, m + kPanel, &v) ||
      !checked_mul(v, static_cast<size_t>(pos) * sizeof(float), &v)) {
    p.worker_bytes = SIZE_MAX;
    return p;
  }
  p.worker_bytes = (v + 63) / 64 * 64;
  return p;
}

size_t winograd_scratch_bytes(const WinogradGeom& g, size_t threads) {
  const WinogradPlan p = plan_winograd(g, threads);
  size_t bytes = 0;
  if (p.worker_bytes == SIZE_MAX ||
      !checked_mul(p.worker_bytes, static_cast<size_t>(p.workers), &bytes) ||
      !checked_add(bytes, 64, &bytes)) {
    return 0;
  }
  return bytes;
}

}  // namespace opt
}  // namespace etr
