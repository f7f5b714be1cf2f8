// The parts of the Winograd convolution (conv_winograd.h) that need no
// vector ISA: the weight transform and the work plan. The tiles and
// products run in conv_winograd_avx2.cpp.
//
// Plan: the tiles of all images, in row-major order per image, form blocks
// of `block` tiles (whole 16-tile GEMM panels); a block's V (positions x
// c_in x block floats) is sized to stay in the L2 cache while the products
// stream the packed weights past it, and made smaller when that lets the
// threads share the blocks evenly at no extra lanes. A work item is a block
// and a range of output channels (co_block): all of them, or, when the
// blocks do not share evenly between the threads, one range per thread;
// each worker takes a contiguous range of items (transforming a block's
// input once for its items of it). With fewer blocks than threads, the
// threads go through each block together instead: they transform its input
// by disjoint input channel ranges into one V, then each takes one output
// channel range. Within an item the output channels go in chunks of
// `co_chunk`, so M (positions x co_chunk x block) stays in cache from its
// product to the output transform.
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
// rows past c_out zero), rounded to 64 bytes, plus 64 bytes so the
// positions' rows (written together at prepare) do not share cache sets;
// 0 on overflow.
size_t matrix_floats(int64_t c_out, int64_t c_in) {
  size_t f = 0;
  if (c_out < 0 || c_in < 0 ||
      !checked_mul(static_cast<size_t>(round_up(c_out, kRows)), static_cast<size_t>(c_in), &f) ||
      f > SIZE_MAX - 32) {
    return 0;
  }
  return (f + 15) / 16 * 16 + 16;
}

// Positions (a * a) for output tiles of `tile`.
int64_t positions(int64_t tile) { return (tile + 2) * (tile + 2); }

// G of F(2x2, 3x3) times 3 values: rows (1, 0, 0), (1/2, 1/2, 1/2),
// (1/2, -1/2, 1/2), (0, 0, 1).
inline void g2(const double* g, ptrdiff_t step, double* o) {
  const double g0 = g[0], g1 = g[step], g2v = g[2 * step];
  const double even = 0.5 * (g0 + g2v);
  o[0] = g0;
  o[1] = even + 0.5 * g1;
  o[2] = even - 0.5 * g1;
  o[3] = g2v;
}

// G of F(4x4, 3x3) times 3 values: rows (1/4, 0, 0), (-1/6, -1/6, -1/6),
// (-1/6, 1/6, -1/6), (1/24, 1/12, 1/6), (1/24, -1/12, 1/6), (0, 0, 1).
inline void g4(const double* g, ptrdiff_t step, double* o) {
  constexpr double k6 = 1.0 / 6, k12 = 1.0 / 12, k24 = 1.0 / 24;
  const double g0 = g[0], g1 = g[step], g2v = g[2 * step];
  const double a = -(g0 + g2v) * k6, b = g1 * k6;
  const double c = g0 * k24 + g2v * k6, d = g1 * k12;
  o[0] = g0 * 0.25;
  o[1] = a - b;
  o[2] = a + b;
  o[3] = c + d;
  o[4] = c - d;
  o[5] = g2v;
}

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

namespace {

// winograd_pack_weights for patches of A (tiles of A - 2), one row panel of
// the operands (6 output channels) at a time, so each position's panel is
// written 6 floats at a time.
template <int A>
void pack_weights(const float* weight, int64_t c_out, int64_t c_in, float* dst) {
  const size_t mat = matrix_floats(c_out, c_in);
  std::memset(dst, 0, mat * static_cast<size_t>(A * A) * sizeof(float));
  for (int64_t p0 = 0; p0 < c_out; p0 += kRows) {
    const int rows = static_cast<int>(std::min<int64_t>(kRows, c_out - p0));
    float* panel = dst + p0 * c_in;
    for (int64_t ci = 0; ci < c_in; ++ci) {
      float u[A * A][kRows];
      for (int r = 0; r < rows; ++r) {
        const float* w = weight + ((p0 + r) * c_in + ci) * 9;
        // t = G g (A x 3, column by column), then U = t G^T (A x A, row by
        // row), in double, rounded once.
        double g[9], t[A][3], col[A], row[A];
        for (int k = 0; k < 9; ++k) g[k] = w[k];
        for (int j = 0; j < 3; ++j) {
          if constexpr (A == 4) {
            g2(g + j, 3, col);
          } else {
            g4(g + j, 3, col);
          }
          for (int i = 0; i < A; ++i) t[i][j] = col[i];
        }
        for (int i = 0; i < A; ++i) {
          if constexpr (A == 4) {
            g2(t[i], 1, row);
          } else {
            g4(t[i], 1, row);
          }
          for (int j = 0; j < A; ++j) u[i * A + j][r] = static_cast<float>(row[j]);
        }
      }
      for (int xi = 0; xi < A * A; ++xi) {
        float* d = panel + static_cast<size_t>(xi) * mat + static_cast<size_t>(ci * kRows);
        for (int r = 0; r < rows; ++r) d[r] = u[xi][r];
      }
    }
  }
}

}  // namespace

void winograd_pack_weights(const float* weight, int64_t c_out, int64_t c_in, int64_t tile,
                           float* dst) {
  if (tile == 2) {
    pack_weights<4>(weight, c_out, c_in, dst);
  } else {
    pack_weights<6>(weight, c_out, c_in, dst);
  }
}

namespace {

// Whether whole blocks (no output channel split), each thread taking its
// run of them from winograd_first_item, leave some thread more than 10% over
// its share of the lanes (a partial last block: ResNet's 56x56 layers, 196
// tiles in blocks of 64 tiles, are 64 + 64 + 64 + 4).
bool uneven_blocks(const WinogradGeom& g, WinogradPlan p, int64_t t) {
  p.co_block = g.c_out;
  p.co_blocks = 1;
  int64_t total = 0, most = 0;
  for (int64_t j = 0; j < t; ++j) {
    int64_t run = 0;
    const int64_t last = winograd_first_item(g, p, j + 1, t);
    for (int64_t b = winograd_first_item(g, p, j, t); b < last; ++b) {
      run += round_up(std::min(p.block, p.tiles - b * p.block), kPanel);
    }
    total += run;
    most = std::max(most, run);
  }
  return most * t * 10 > total * 11;
}

}  // namespace

int64_t winograd_first_item(const WinogradGeom& g, const WinogradPlan& p, int64_t j,
                            int64_t workers) {
  const int64_t items = p.blocks * p.co_blocks;
  if (j <= 0) return 0;
  if (j >= workers) return items;
  auto cost = [&](int64_t item) {
    const int64_t blk = item / p.co_blocks, cb = item % p.co_blocks;
    const int64_t tiles = std::min(p.block, p.tiles - blk * p.block);
    const int64_t rows = std::min(p.co_block, g.c_out - cb * p.co_block);
    return round_up(tiles, kPanel) * ceil_div(rows, kRows);
  };
  int64_t total = 0;
  for (int64_t k = 0; k < items; ++k) total += cost(k);
  const int64_t target = total * j / workers;
  int64_t before = 0;
  for (int64_t k = 0; k < items; ++k) {
    const int64_t after = before + cost(k);
    if (after > target) return target - before <= after - target ? k : k + 1;
    before = after;
  }
  return items;
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
  // Lanes the products compute with blocks of b tiles (whole panels each).
  auto lanes = [&](int64_t b) { return p.tiles / b * b + round_up(p.tiles % b, kPanel); };
  if (block <= 0 && t > 1 && p.blocks % t != 0) {
    // Smaller blocks that share evenly, when they compute no more lanes
    // (49 tiles: 2 x 32 rather than 1 x 64), so no block is transformed twice.
    const int64_t b2 = round_up(ceil_div(p.tiles, round_up(p.blocks, t)), kPanel);
    if (ceil_div(p.tiles, b2) % t == 0 && lanes(b2) <= lanes(p.block)) {
      p.block = b2;
      p.blocks = ceil_div(p.tiles, b2);
    }
  }
  p.co_block = g.c_out;
  p.co_blocks = 1;
  if (t > 1 && p.blocks < 8 * t && (p.blocks % t != 0 || uneven_blocks(g, p, t))) {
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
