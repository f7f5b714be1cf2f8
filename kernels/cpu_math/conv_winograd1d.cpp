// The parts of the 1-D Winograd convolution (conv_winograd1d.h) that need no
// vector ISA: the transform matrices, the weight transform and the work
// plan. The tiles and products run in conv_winograd1d_avx2.cpp.
//
// Matrices of one run of s taps: with the finite points p_0 .. p_{a-2} and
// infinity, E_n (a x n) evaluates a polynomial of n coefficients at the
// points (row i: p_i^0 .. p_i^{n-1}; the infinity row picks the top
// coefficient). A linear convolution c = h * g (m and s coefficients) is
// V_a^-1 ((E_s g) . (E_m h)); the correlation y[j] = sum_t g[t] d[j + t] is
// its transpose in h: y = E_m^T ((E_s g) . (V_a^-T d)), so A^T = E_m^T,
// G = E_s, B^T = V_a^-T.
#include "kernels/cpu_math/conv_winograd1d.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu_math/gemm.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace opt {
namespace {

constexpr int64_t kPanel = 16;  // the GEMM's packed column panel (kGemmNr)
constexpr int64_t kMaxBlock = 128;
// V of one block, in floats (768 KiB: within a 1 MiB L2 with room for M).
constexpr int64_t kBlockFloats = int64_t{192} << 10;
// M of one chunk, in floats (256 KiB).
constexpr int64_t kChunkFloats = int64_t{64} << 10;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t v, int64_t to) { return ceil_div(v, to) * to; }

// The finite points, in the order they are taken (a run takes a - 1 <=
// kWinograd1dMaxWindow - 1 of them).
constexpr double kPoints[kWinograd1dMaxWindow - 1] = {
    0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.0 / 3, -1.0 / 3, 4.0, -4.0, 0.25, -0.25};

// Row i of E_n (n values) over a points.
void eval_row(int64_t a, int64_t i, int64_t n, double* row) {
  if (i == a - 1) {
    for (int64_t j = 0; j < n; ++j) row[j] = j == n - 1 ? 1.0 : 0.0;
    return;
  }
  double p = 1.0;
  for (int64_t j = 0; j < n; ++j, p *= kPoints[i]) row[j] = p;
}

// Taps of run r of a k-tap filter (runs of kWinograd1dRunTaps, the last
// the rest); 0 past the last run.
int64_t run_taps(int64_t k, int64_t r) {
  const int64_t t0 = r * kWinograd1dRunTaps;
  return t0 >= k ? 0 : std::min(kWinograd1dRunTaps, k - t0);
}

// One run's F(m, s) over a = m + s - 1 points into the stacked matrices:
// rows [p0, p0 + a) of A^T's columns, G's rows and B^T's rows, G's columns
// and B^T's columns from tap / input t0 on (leading dimensions P, k, L).
void run_matrices(int64_t s, int64_t m, int64_t p0, int64_t t0, int64_t points, int64_t k,
                  int64_t window, double* at, double* g, double* bt) {
  const int64_t a = s + m - 1;
  // V_a and its inverse by Gauss-Jordan elimination with partial pivoting.
  double v[kWinograd1dMaxWindow][kWinograd1dMaxWindow];
  double inv[kWinograd1dMaxWindow][kWinograd1dMaxWindow];
  for (int64_t i = 0; i < a; ++i) {
    eval_row(a, i, a, v[i]);
    for (int64_t j = 0; j < a; ++j) inv[i][j] = i == j ? 1.0 : 0.0;
  }
  for (int64_t c = 0; c < a; ++c) {
    int64_t piv = c;
    for (int64_t r = c + 1; r < a; ++r) {
      if (std::fabs(v[r][c]) > std::fabs(v[piv][c])) piv = r;
    }
    for (int64_t j = 0; j < a; ++j) {
      std::swap(v[c][j], v[piv][j]);
      std::swap(inv[c][j], inv[piv][j]);
    }
    const double d = v[c][c];
    for (int64_t j = 0; j < a; ++j) {
      v[c][j] /= d;
      inv[c][j] /= d;
    }
    for (int64_t r = 0; r < a; ++r) {
      if (r == c || v[r][c] == 0.0) continue;
      const double f = v[r][c];
      for (int64_t j = 0; j < a; ++j) {
        v[r][j] -= f * v[c][j];
        inv[r][j] -= f * inv[c][j];
      }
    }
  }
  double row[kWinograd1dMaxWindow];
  for (int64_t i = 0; i < a; ++i) {
    const int64_t p = p0 + i;
    eval_row(a, i, s, row);
    for (int64_t t = 0; t < s; ++t) g[p * k + t0 + t] = row[t];
    eval_row(a, i, m, row);
    for (int64_t j = 0; j < m; ++j) at[j * points + p] = row[j];
    for (int64_t n = 0; n < a; ++n) bt[p * window + t0 + n] = inv[n][i];
  }
}

// Floats of one point's packed [c_in, c_out] B operand (column panels of
// 16, columns past c_out zero), rounded to 64 bytes, plus 64 bytes; 0 on
// overflow.
size_t matrix_floats(int64_t c_out, int64_t c_in) {
  size_t f = 0;
  if (c_out <= 0 || c_in <= 0 ||
      !checked_mul(static_cast<size_t>(round_up(c_out, kPanel)), static_cast<size_t>(c_in), &f) ||
      f > SIZE_MAX / 8) {
    return 0;
  }
  return (f + 15) / 16 * 16 + 16;
}

}  // namespace

int64_t winograd1d_points(int64_t k, int64_t tile) {
  int64_t p = 0;
  for (int64_t r = 0; run_taps(k, r) > 0; ++r) p += run_taps(k, r) + tile - 1;
  return p;
}

bool winograd1d_supported(int64_t k, int64_t tile) {
  return k >= 2 && k <= kWinograd1dMaxWindow && tile >= 1 && tile <= kWinograd1dMaxTile &&
         k + tile - 1 <= kWinograd1dMaxWindow && winograd1d_points(k, tile) <= kWinograd1dMaxPoints;
}

bool winograd1d_matrices(int64_t k, int64_t tile, double* at, double* g, double* bt) {
  if (!winograd1d_supported(k, tile)) return false;
  const int64_t points = winograd1d_points(k, tile), window = k + tile - 1;
  std::fill(at, at + tile * points, 0.0);
  std::fill(g, g + points * k, 0.0);
  std::fill(bt, bt + points * window, 0.0);
  int64_t p0 = 0;
  for (int64_t r = 0; run_taps(k, r) > 0; ++r) {
    const int64_t s = run_taps(k, r);
    run_matrices(s, tile, p0, r * kWinograd1dRunTaps, points, k, window, at, g, bt);
    p0 += s + tile - 1;
  }
  return true;
}

// Measured on Zen 4 against im2col + GEMM (one thread, wav2letter's layers
// over 100 frames: 250 x 250 channels, 7 taps, F(6, 7) 2.5x faster; 250 ->
// 512 channels, 11 taps, F(6, 7) + F(6, 4) 2.2x): the tile with the fewest
// multiplies counting the idle lanes of the GEMM's panels (P points x tiles
// rounded up to 6 x output channels rounded up to 16), for m = 2 .. 6
// (errors within about 2e-5 of the output's scale at such sizes:
// winograd1d_test.cpp). Taken when that is under 0.7 of the direct
// product's (k x output channels rounded up to 6 x outputs rounded up to
// 16), for 7 to 11 taps and from 16 input and output channels.
int64_t winograd1d_pick_tile(int64_t c_in, int64_t c_out, int64_t k, int64_t ow) {
  constexpr int64_t kMinChannels = 16, kRowPanel = 6;
  if (!winograd1d_available() || k < 7 || k > 11 || c_in < kMinChannels || c_out < kMinChannels ||
      c_out > INT32_MAX || ow < 1 || ow > INT32_MAX) {
    return 0;
  }
  int64_t best = 0, best_cost = 0;
  for (int64_t m = 2; m <= 6; ++m) {
    if (!winograd1d_supported(k, m)) continue;
    const int64_t cost =
        winograd1d_points(k, m) * round_up(ceil_div(ow, m), kRowPanel) * round_up(c_out, kPanel);
    if (best == 0 || cost < best_cost) {
      best = m;
      best_cost = cost;
    }
  }
  const int64_t direct = k * round_up(ow, kPanel) * round_up(c_out, kRowPanel);
  return best != 0 && 10 * best_cost < 7 * direct ? best : 0;
}

size_t winograd1d_weight_bytes(int64_t c_out, int64_t c_in, int64_t k, int64_t tile) {
  const size_t f = matrix_floats(c_out, c_in);
  size_t bytes = 0;
  if (f == 0 || !winograd1d_supported(k, tile) ||
      !checked_mul(f, static_cast<size_t>(winograd1d_points(k, tile)) * sizeof(float), &bytes)) {
    return 0;
  }
  return bytes;
}

void winograd1d_pack_weights(const float* weight, int64_t c_out, int64_t c_in, int64_t k,
                             int64_t tile, float* dst, bool taps_inner) {
  const int64_t ci_step = taps_inner ? k : 1, t_step = taps_inner ? 1 : c_in;
  double at[kWinograd1dMaxTile * kWinograd1dMaxPoints];
  double gm[kWinograd1dMaxPoints * kWinograd1dMaxWindow];
  double bt[kWinograd1dMaxPoints * kWinograd1dMaxWindow];
  if (!winograd1d_matrices(k, tile, at, gm, bt)) return;
  const int64_t points = winograd1d_points(k, tile);
  const size_t mat = matrix_floats(c_out, c_in);
  // The padding after each point's column panels (the vector path writes
  // the panels only).
  const size_t panels = static_cast<size_t>(round_up(c_out, kPanel) * c_in);
  for (int64_t xi = 0; xi < points; ++xi) {
    float* end = dst + static_cast<size_t>(xi) * mat;
    std::memset(end + panels, 0, (mat - panels) * sizeof(float));
  }
  // G transposed (tap-major, rows of `stride`, zero past the points), so
  // each tap adds to all points at once.
  constexpr int64_t stride = kWinograd1dMaxPoints;
  double gt[kWinograd1dMaxWindow * stride] = {};
  for (int64_t xi = 0; xi < points; ++xi) {
    for (int64_t t = 0; t < k; ++t) gt[t * stride + xi] = gm[xi * k + t];
  }
  if (winograd1d_available()) {
    internal::winograd1d_pack_avx2(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat,
                                   dst);
    return;
  }
  // Element (ci, co) of point xi's operand: panel co / 16 (at (co / 16) *
  // 16 * c_in), then ci * 16 + co % 16; columns past c_out are zero.
  if (c_out % kPanel != 0) {
    for (int64_t xi = 0; xi < points; ++xi) {
      float* last = dst + static_cast<size_t>(xi) * mat + (c_out / kPanel) * kPanel * c_in;
      std::memset(last, 0, static_cast<size_t>(kPanel * c_in) * sizeof(float));
    }
  }
  for (int64_t co = 0; co < c_out; ++co) {
    float* panel = dst + (co / kPanel) * kPanel * c_in + co % kPanel;
    for (int64_t ci = 0; ci < c_in; ++ci) {
      const float* w = weight + co * c_in * k + ci * ci_step;
      double u[kWinograd1dMaxPoints] = {};
      for (int64_t t = 0; t < k; ++t) {
        const double wt = w[t * t_step];
        for (int64_t xi = 0; xi < points; ++xi) u[xi] += gt[t * stride + xi] * wt;
      }
      for (int64_t xi = 0; xi < points; ++xi) {
        panel[static_cast<size_t>(xi) * mat + static_cast<size_t>(ci * kPanel)] =
            static_cast<float>(u[xi]);
      }
    }
  }
}

Winograd1dPlan plan_winograd1d(const Winograd1dGeom& g, size_t threads) {
  Winograd1dPlan p;
  p.worker_bytes = SIZE_MAX;
  if (!winograd1d_supported(g.k, g.tile) || g.batch <= 0 || g.c_in <= 0 || g.c_out <= 0 ||
      g.ow <= 0 || g.c_in > INT32_MAX || g.c_out > INT32_MAX || g.ow > INT32_MAX ||
      g.batch > INT32_MAX) {
    return p;
  }
  const int64_t a = winograd1d_points(g.k, g.tile);
  p.tiles_per_image = ceil_div(g.ow, g.tile);
  // Tiles per block: V (a x c_in x lanes) within the L2 budget, at most 128.
  int64_t most = kBlockFloats / (a * g.c_in);
  most = std::min(std::max(most, kPanel), kMaxBlock);
  p.blocks_per_image = ceil_div(p.tiles_per_image, most);
  p.block = ceil_div(p.tiles_per_image, p.blocks_per_image);
  p.blocks = g.batch * p.blocks_per_image;
  const int64_t lanes = round_up(p.block, kPanel);
  const int64_t t = static_cast<int64_t>(std::max<size_t>(threads, 1));
  p.co_range = round_up(ceil_div(g.c_out, t), kPanel);
  p.workers = ceil_div(g.c_out, p.co_range);
  p.co_chunk =
      std::min(p.co_range, round_up(std::max<int64_t>(1, kChunkFloats / (a * p.block)), kPanel));
  // c_in, c_out <= INT32_MAX and block <= 128: no overflow in 64 bits.
  p.v_stride = g.c_in * lanes + kPanel;
  p.m_stride = p.co_chunk * p.block + kPanel;
  size_t v = 0, m = 0;
  if (!checked_mul(static_cast<size_t>(p.v_stride), static_cast<size_t>(a) * sizeof(float), &v) ||
      !checked_mul(static_cast<size_t>(p.m_stride), static_cast<size_t>(a) * sizeof(float), &m) ||
      v > SIZE_MAX / 8 || m > SIZE_MAX / 8) {
    return p;
  }
  // The GEMM packs V^T (block x c_in) itself; B comes packed.
  const PackedMatrix b{nullptr, g.c_in, p.co_chunk};
  GemmArgs args;
  args.m = p.block;
  args.n = p.co_chunk;
  args.k = g.c_in;
  args.a = MatrixView{nullptr, 1, lanes};
  args.packed_b = &b;
  args.ldc = p.co_chunk;
  const size_t gemm = gemm_scratch_bytes(args, 1);
  if (gemm == SIZE_MAX || gemm > SIZE_MAX / 8) return p;
  p.v_bytes = (v + 63) / 64 * 64;
  p.m_bytes = (m + 63) / 64 * 64;
  // Output rows of 8 channels for the block's tiles.
  p.stage_bytes = (static_cast<size_t>(p.block * g.tile) * 8 * sizeof(float) + 63) / 64 * 64;
  p.gemm_bytes = (gemm + 64 + 63) / 64 * 64;
  p.worker_bytes = p.m_bytes + p.stage_bytes + p.gemm_bytes;
  return p;
}

size_t winograd1d_scratch_bytes(const Winograd1dGeom& g, size_t threads) {
  const Winograd1dPlan p = plan_winograd1d(g, threads);
  size_t bytes = 0;
  if (p.worker_bytes == SIZE_MAX ||
      !checked_mul(p.worker_bytes, static_cast<size_t>(p.workers), &bytes) ||
      !checked_add(bytes, p.v_bytes + 64, &bytes)) {
    return 0;
  }
  return bytes;
}

}  // namespace opt
}  // namespace etr
