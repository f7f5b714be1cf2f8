// The tiles and products of the 1-D Winograd convolution
// (conv_winograd1d.h), AVX2 + FMA.
//
// Input transform, per input channel and 8 tiles (lanes) of a 16-lane
// panel: each tile's L inputs are one or two 8-float loads (a plain load
// when they lie inside the row, else a copy with zeros outside it), the
// 8 tiles' rows are transposed into vectors over the lanes (input j of
// every tile), and V_xi = sum over j of B^T[xi, j] d_j goes to point xi's
// [c_in, lanes] matrix, which the GEMM reads as V^T. Output transform, per
// 8 output channels and tile: y_j = sum over xi of A^T[j, xi] M_xi^T[tile,
// channels] plus the bias, clamp and SiLU, into a staging block [outputs,
// 8 channels] that a transpose writes into the channels' rows. Templates on
// the tile's inputs L and outputs m, so the loops over them have fixed trip
// counts and their vectors stay in registers.
#include "kernels/cpu_math/conv_winograd1d.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/vec_math_avx2_inl.h"
#include "kernels/cpu_math/vec_transpose.h"

namespace etr {
namespace opt {
namespace {

constexpr int64_t kPanel = 16;

using avx2_inl::transpose8;

struct Call {
  const Winograd1dGeom* g;
  const Winograd1dPlan* p;
  const float* in;
  const float* packed;
  size_t mat;  // floats per point's packed weights (U^T)
  const float* bias;
  DepthwiseEpilogue e;
  float* out;
  int64_t points = 0;
  // The matrices in float, zero-padded: A^T as 8 rows of kWinograd1dMaxPoints
  // (at[j * kWinograd1dMaxPoints + xi]), B^T as P rows of 16 (bt[xi * 16 + j]).
  float at[8 * kWinograd1dMaxPoints];
  float bt[kWinograd1dMaxPoints * 16];
};

// Where lane l of a block reads: its image's input offset and its first
// output; invalid past the block's tiles.
struct Lane {
  int64_t in_base = 0, x0 = 0;
  bool valid = false;
};

// Block `blk`'s image, first tile and tile count.
struct Block {
  int64_t image = 0, first = 0, count = 0;
};

Block block_of(const Call& c, int64_t blk) {
  const Winograd1dPlan& p = *c.p;
  Block b;
  b.image = blk / p.blocks_per_image;
  b.first = blk % p.blocks_per_image * p.block;
  b.count = std::min(p.block, p.tiles_per_image - b.first);
  return b;
}

void block_lanes(const Call& c, const Block& b, int64_t ncols, Lane* lanes) {
  const Winograd1dGeom& g = *c.g;
  for (int64_t l = 0; l < ncols; ++l) {
    Lane& ln = lanes[l];
    ln.valid = l < b.count;
    ln.x0 = (b.first + l) * g.tile;
    ln.in_base = b.image * g.c_in * g.w;
  }
}

// V of panel `panel` (16 lanes) for input channels [ci0, ci1), for tiles
// of L inputs (one 8-float load per tile up to 8, two past it).
template <int L>
void input_panel(const Call& c, const Lane* lanes, int64_t panel, int64_t ldv, int64_t ci0,
                 int64_t ci1, float* v) {
  constexpr int kLoads = L > 8 ? 2 : 1;
  const Winograd1dGeom& g = *c.g;
  const int window = L;
  const int64_t points = c.points;
  const size_t xi_stride = static_cast<size_t>(c.p->v_stride);
  for (int h = 0; h < kPanel; h += 8) {
    const Lane* ln = lanes + panel * kPanel + h;
    // Per lane: its first input's column, and whether the kLoads * 8 floats
    // from there lie inside the row (then read in place).
    int64_t x0[8];
    bool inside[8];
    for (int q = 0; q < 8; ++q) {
      x0[q] = ln[q].x0 - g.pad;
      inside[q] = ln[q].valid && x0[q] >= 0 && x0[q] + kLoads * 8 <= g.w;
    }
    for (int64_t ci = ci0; ci < ci1; ++ci) {
      __m256 d[8 * kLoads];
      for (int q = 0; q < 8; ++q) {
        const float* row_in = c.in + ln[q].in_base + ci * g.w;
        if (inside[q]) {
          d[q] = _mm256_loadu_ps(row_in + x0[q]);
          if constexpr (kLoads == 2) d[8 + q] = _mm256_loadu_ps(row_in + x0[q] + 8);
          continue;
        }
        alignas(32) float row[16] = {};
        if (ln[q].valid) {
          for (int j = 0; j < window; ++j) {
            const int64_t x = x0[q] + j;
            if (x >= 0 && x < g.w) row[j] = row_in[x];
          }
        }
        d[q] = _mm256_load_ps(row);
        if constexpr (kLoads == 2) d[8 + q] = _mm256_load_ps(row + 8);
      }
      transpose8(d);
      if constexpr (kLoads == 2) transpose8(d + 8);
      float* dst = v + ci * ldv + panel * kPanel + h;
      for (int64_t i = 0; i < points; ++i) {
        const float* b = c.bt + i * 16;
        __m256 acc = _mm256_mul_ps(_mm256_broadcast_ss(b), d[0]);
        for (int j = 1; j < L; ++j) {
          acc = _mm256_fmadd_ps(_mm256_broadcast_ss(b + j), d[j], acc);
        }
        _mm256_store_ps(dst + static_cast<size_t>(i) * xi_stride, acc);
      }
    }
  }
}

// Output channels [c0, c0 + rows) of block b from M^T (point xi's
// [count, ldc] at m + xi * m_stride), tiles of kM outputs, through `stage`.
template <int kM>
void output_rows(const Call& c, const Block& blk, int64_t c0, int64_t rows, const float* m,
                 int64_t ldc, float* stage) {
  const Winograd1dGeom& g = *c.g;
  const int64_t points = c.points;
  const size_t xi_stride = static_cast<size_t>(c.p->m_stride);
  const __m256 lo = _mm256_set1_ps(c.e.lo), hi = _mm256_set1_ps(c.e.hi);
  const bool clamp = c.e.lo > -__builtin_inff() || c.e.hi < __builtin_inff();
  const int64_t x_first = blk.first * kM;
  const int64_t nx = std::min<int64_t>(blk.count * kM, g.ow - x_first);
  float* out = c.out + blk.image * g.c_out * g.ow + x_first;
  float* out_cl = c.out + (blk.image * g.ow + x_first) * g.c_out;
  for (int64_t cg = 0; cg < rows; cg += 8) {
    const int64_t nco = std::min<int64_t>(8, rows - cg);
    alignas(32) int32_t tail_mask[8];
    for (int i = 0; i < 8; ++i) tail_mask[i] = i < nco ? -1 : 0;
    const __m256i tail = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail_mask));
    alignas(32) float bias[8] = {};
    if (c.bias != nullptr) {
      for (int64_t i = 0; i < nco; ++i) bias[i] = c.bias[c0 + cg + i];
    }
    const __m256 b = _mm256_load_ps(bias);
    for (int64_t t = 0; t < blk.count; ++t) {
      // Past `rows` the 8 channels read the padding of M^T (unused).
      const float* mt = m + t * ldc + cg;
      __m256 y[kM];
      for (int j = 0; j < kM; ++j) y[j] = b;
      for (int64_t i = 0; i < points; ++i) {
        const __m256 mv = _mm256_loadu_ps(mt + i * xi_stride);
        for (int j = 0; j < kM; ++j) {
          y[j] =
              _mm256_fmadd_ps(_mm256_broadcast_ss(&c.at[j * kWinograd1dMaxPoints + i]), mv, y[j]);
        }
      }
      for (int j = 0; j < kM; ++j) {
        if (clamp) y[j] = _mm256_min_ps(hi, _mm256_max_ps(lo, y[j]));
        if (c.e.silu) y[j] = avx2_inl::silu8(y[j]);
        if (!g.out_channels_last) {
          _mm256_store_ps(stage + (t * kM + j) * 8, y[j]);
        } else if (t * kM + j < nx) {
          // Channels last: output x's 8 channels are contiguous.
          float* o = out_cl + (t * kM + j) * g.c_out + c0 + cg;
          if (nco == 8) {
            _mm256_storeu_ps(o, y[j]);
          } else {
            _mm256_maskstore_ps(o, tail, y[j]);
          }
        }
      }
    }
    // out[co, x] = stage[x, co] for the block's outputs inside the row.
    if (!g.out_channels_last) transpose_f32(stage, 8, out + (c0 + cg) * g.ow, g.ow, nco, nx);
  }
}

void transform_input(const Call& c, const Lane* lanes, int64_t ncols, int64_t ci0, int64_t ci1,
                     float* v) {
  // Each point's V is [c_in, ncols].
  const int64_t window = c.g->k + c.g->tile - 1;
  for (int64_t panel = 0; panel < ncols / kPanel; ++panel) {
    switch (window) {
#define ETR_W1D_INPUT(L) \
  case L: input_panel<L>(c, lanes, panel, ncols, ci0, ci1, v); break;
      ETR_W1D_INPUT(2)
      ETR_W1D_INPUT(3)
      ETR_W1D_INPUT(4)
      ETR_W1D_INPUT(5)
      ETR_W1D_INPUT(6)
      ETR_W1D_INPUT(7)
      ETR_W1D_INPUT(8)
      ETR_W1D_INPUT(9)
      ETR_W1D_INPUT(10)
      ETR_W1D_INPUT(11)
      ETR_W1D_INPUT(12)
      ETR_W1D_INPUT(13)
      ETR_W1D_INPUT(14)
      ETR_W1D_INPUT(15)
#undef ETR_W1D_INPUT
      default: input_panel<16>(c, lanes, panel, ncols, ci0, ci1, v); break;
    }
  }
}

void transform_output(const Call& c, const Block& blk, int64_t c0, int64_t rows, const float* m,
                      int64_t ldc, float* stage) {
  switch (c.g->tile) {
#define ETR_W1D_OUTPUT(M) \
  case M: output_rows<M>(c, blk, c0, rows, m, ldc, stage); break;
    ETR_W1D_OUTPUT(1)
    ETR_W1D_OUTPUT(2)
    ETR_W1D_OUTPUT(3)
    ETR_W1D_OUTPUT(4)
    ETR_W1D_OUTPUT(5)
    ETR_W1D_OUTPUT(6)
    ETR_W1D_OUTPUT(7)
#undef ETR_W1D_OUTPUT
    default: output_rows<8>(c, blk, c0, rows, m, ldc, stage); break;
  }
}

// The products and the output transform of output channels [co_first,
// co_end) for block `blk` whose V is at v ([c_in, ncols] per point), in
// chunks through worker memory `wmem` (M^T, the staging rows, the GEMM's
// scratch).
void products_and_output(const Call& c, const Block& blk, int64_t ncols, int64_t co_first,
                         int64_t co_end, const float* v, uint8_t* wmem, bool* failed) {
  const Winograd1dGeom& g = *c.g;
  const Winograd1dPlan& p = *c.p;
  float* m = reinterpret_cast<float*>(wmem);
  float* stage = reinterpret_cast<float*>(wmem + p.m_bytes);
  uint8_t* gemm_mem = wmem + p.m_bytes + p.stage_bytes;
  for (int64_t c0 = co_first; c0 < co_end; c0 += p.co_chunk) {
    const int64_t rows = std::min(p.co_chunk, co_end - c0);
    for (int64_t xi = 0; xi < c.points; ++xi) {
      const PackedMatrix pb{c.packed + xi * c.mat + c0 * g.c_in, g.c_in, rows};
      GemmArgs args;
      args.m = blk.count;
      args.n = rows;
      args.k = g.c_in;
      args.a = MatrixView{v + xi * p.v_stride, 1, ncols};  // V^T
      args.packed_b = &pb;
      args.c = m + xi * p.m_stride;
      args.ldc = rows;
      MemoryAllocator scratch(gemm_mem, p.gemm_bytes);
      if (gemm(args, &scratch, nullptr) != Error::Ok) {
        __atomic_store_n(failed, true, __ATOMIC_RELAXED);
      }
    }
    transform_output(c, blk, c0, rows, m, rows, stage);
  }
}

}  // namespace

bool winograd1d_available() { return cpu_features().avx2_fma; }

namespace internal {

namespace {

// winograd1d_pack_avx2 with kVecs 4-double vectors per tap (P <= 4 * kVecs).
template <int kVecs>
void pack_panels(const float* weight, int64_t c_out, int64_t c_in, int64_t k, int64_t ci_step,
                 int64_t t_step, int64_t points, const double* gt, int64_t stride, size_t mat,
                 float* dst) {
  // One column panel (16 output channels) at a time, so each point's panel
  // is written 16 floats at a time, in order; columns past c_out are zero.
  for (int64_t q0 = 0; q0 < c_out; q0 += kPanel) {
    float* panel = dst + q0 * c_in;
    const int64_t cols = std::min<int64_t>(kPanel, c_out - q0);
    for (int64_t ci = 0; ci < c_in; ++ci) {
      alignas(32) float f[kPanel][4 * kVecs];
      for (int64_t r0 = 0; r0 < kPanel; r0 += 4) {
        // 4 channels' sums side by side (independent chains; channels past
        // c_out read channel q0's taps and are zeroed).
        __m256d u[4][kVecs];
        const float* w[4];
        for (int r = 0; r < 4; ++r) {
          for (int v = 0; v < kVecs; ++v) u[r][v] = _mm256_setzero_pd();
          w[r] = weight + (q0 + (r0 + r < cols ? r0 + r : 0)) * c_in * k + ci * ci_step;
        }
        for (int64_t t = 0; t < k; ++t) {
          __m256d gv[kVecs];
          for (int v = 0; v < kVecs; ++v) gv[v] = _mm256_loadu_pd(gt + t * stride + 4 * v);
          for (int r = 0; r < 4; ++r) {
            const __m256d wt = _mm256_set1_pd(static_cast<double>(w[r][t * t_step]));
            for (int v = 0; v < kVecs; ++v) u[r][v] = _mm256_fmadd_pd(gv[v], wt, u[r][v]);
          }
        }
        for (int r = 0; r < 4; ++r) {
          for (int v = 0; v < kVecs; ++v) {
            _mm_store_ps(f[r0 + r] + 4 * v,
                         r0 + r < cols ? _mm256_cvtpd_ps(u[r][v]) : _mm_setzero_ps());
          }
        }
      }
      for (int64_t xi = 0; xi < points; ++xi) {
        float* d = panel + static_cast<size_t>(xi) * mat + static_cast<size_t>(ci * kPanel);
        for (int r = 0; r < kPanel; ++r) d[r] = f[r][xi];
      }
    }
  }
}

}  // namespace

void winograd1d_pack_avx2(const float* weight, int64_t c_out, int64_t c_in, int64_t k,
                          int64_t ci_step, int64_t t_step, int64_t points, const double* gt,
                          int64_t stride, size_t mat, float* dst) {
  static_assert(kWinograd1dMaxPoints <= 24, "pack_panels takes up to 6 vectors");
  switch ((points + 3) / 4) {
    case 1:
      pack_panels<1>(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat, dst);
      break;
    case 2:
      pack_panels<2>(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat, dst);
      break;
    case 3:
      pack_panels<3>(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat, dst);
      break;
    case 4:
      pack_panels<4>(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat, dst);
      break;
    case 5:
      pack_panels<5>(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat, dst);
      break;
    default:
      pack_panels<6>(weight, c_out, c_in, k, ci_step, t_step, points, gt, stride, mat, dst);
      break;
  }
}

}  // namespace internal

bool conv1d_winograd_avx2(const Winograd1dGeom& g, const float* in, const float* packed,
                          const float* bias, const DepthwiseEpilogue& e, float* out, void* scratch,
                          size_t scratch_bytes, ThreadPool* pool) {
  const size_t threads = pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
  Winograd1dPlan p = plan_winograd1d(g, threads);
  if (p.worker_bytes == SIZE_MAX || p.blocks <= 0 || p.block > kPanel * 8 ||
      g.ow != g.w + 2 * g.pad - g.k + 1) {
    return false;
  }
  // 64-byte aligned start; V, then as many workers' memory as the scratch holds.
  const uintptr_t at = reinterpret_cast<uintptr_t>(scratch);
  const size_t skip = (64 - at % 64) % 64;
  const size_t usable = scratch_bytes > skip + p.v_bytes ? scratch_bytes - skip - p.v_bytes : 0;
  const int64_t fit = static_cast<int64_t>(usable / p.worker_bytes);
  if (fit < 1) return false;
  if (fit < p.workers) {
    // Fewer workers: wider output channel ranges (the chunks stay as planned).
    p.co_range = (g.c_out + fit - 1) / fit;
    p.co_range = (p.co_range + kPanel - 1) / kPanel * kPanel;
    p.workers = (g.c_out + p.co_range - 1) / p.co_range;
  }
  const int64_t points = winograd1d_points(g.k, g.tile);
  Call c{&g, &p, in, packed, 0, bias, e, out, points, {}, {}};
  c.mat = winograd1d_weight_bytes(g.c_out, g.c_in, g.k, g.tile) /
          (static_cast<size_t>(points) * sizeof(float));
  double atd[kWinograd1dMaxTile * kWinograd1dMaxPoints];
  double gd[kWinograd1dMaxPoints * kWinograd1dMaxWindow];
  double btd[kWinograd1dMaxPoints * kWinograd1dMaxWindow];
  if (!winograd1d_matrices(g.k, g.tile, atd, gd, btd)) return false;
  const int64_t window = g.k + g.tile - 1;
  for (int64_t j = 0; j < g.tile; ++j) {
    for (int64_t i = 0; i < points; ++i) {
      c.at[j * kWinograd1dMaxPoints + i] = static_cast<float>(atd[j * points + i]);
    }
  }
  for (int64_t i = 0; i < points; ++i) {
    for (int64_t j = 0; j < window; ++j) c.bt[i * 16 + j] = static_cast<float>(btd[i * window + j]);
  }
  uint8_t* base = static_cast<uint8_t*>(scratch) + skip;
  float* v = reinterpret_cast<float*>(base);
  bool failed = false;
  const int64_t workers = p.workers;
  Lane lanes[kPanel * 8];
  for (int64_t blk = 0; blk < p.blocks; ++blk) {
    const Block b = block_of(c, blk);
    const int64_t ncols = (b.count + kPanel - 1) / kPanel * kPanel;
    block_lanes(c, b, ncols, lanes);
    // The workers transform disjoint input channel ranges into the one V,
    // then take one output channel range each.
    parallel_for(pool, static_cast<size_t>(workers), 1, [&](size_t begin, size_t end) {
      for (size_t w = begin; w < end; ++w) {
        const int64_t i = static_cast<int64_t>(w);
        transform_input(c, lanes, ncols, i * g.c_in / workers, (i + 1) * g.c_in / workers, v);
      }
    });
    parallel_for(pool, static_cast<size_t>(workers), 1, [&](size_t begin, size_t end) {
      for (size_t w = begin; w < end; ++w) {
        const int64_t co_first = static_cast<int64_t>(w) * p.co_range;
        const int64_t co_end = std::min(g.c_out, co_first + p.co_range);
        products_and_output(c, b, ncols, co_first, co_end, v, base + p.v_bytes + w * p.worker_bytes,
                            &failed);
      }
    });
  }
  return !failed;
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (winograd1d_available is false).

namespace etr {
namespace opt {

bool winograd1d_available() { return false; }

namespace internal {
void winograd1d_pack_avx2(const float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                          const double*, int64_t, size_t, float*) {}
}  // namespace internal

bool conv1d_winograd_avx2(const Winograd1dGeom&, const float*, const float*, const float*,
                          const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*) {
  return false;
}

}  // namespace opt
}  // namespace etr

#endif
