// The tiles and products of the Winograd convolution (conv_winograd.h),
// AVX2 + FMA.
//
// Input transform, per 16-tile panel and input channel, 8 tiles per vector:
// each row of a tile's a x a patch is one masked load (zero outside the
// image; a plain load when all 8 tiles' patches lie inside it), 8 tiles'
// rows are transposed into lane vectors (element k of every tile), then
// B^T d B runs rows first, and the a * a results go to V_xi's packed panel
// (element (ci, l) at ci * 16 + l). Output transform, per output channel
// and 8 tiles: A^T M A from the a * a product rows, plus the bias, clamp and
// SiLU, transposed back to per-tile rows and stored (clipped at the image's
// bottom and right edges). Both are templates on the tile size m (4:
// F(4x4, 3x3), a = 6; 2: F(2x2, 3x3), a = 4).
#include "kernels/cpu_math/conv_winograd.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm.h"
#include "kernels/cpu_math/vec_math_avx2_inl.h"

namespace etr {
namespace opt {
namespace {

constexpr int64_t kPanel = 16;
constexpr int64_t kMaxBlock = 128;
constexpr int64_t kRows = 6;  // the GEMM's packed row panel (kGemmMr)
// Transformed weights up to this size take the lane split of a single panel
// on two threads (each thread streams all of them).
constexpr size_t kLaneSplitMaxWeightBytes = size_t{1} << 20;

// Where tile `l` of the block sits: its image's input and output offsets,
// its output origin; `valid` false for lanes past the last tile.
struct Lane {
  int64_t in_base = 0, out_base = 0;
  int64_t y0 = 0, x0 = 0;
  bool valid = false;
  // Patch rows [r_lo, r_hi) lie inside the image (none for an invalid
  // lane); within them, columns k with mask[k] set (k < 6, inside the image).
  int r_lo = 0, r_hi = 0;
  alignas(32) int32_t mask[8] = {};
};

// B^T of F(2x2, 3x3) applied to 4 values.
inline void bt4(const __m256* d, __m256* o) {
  o[0] = _mm256_sub_ps(d[0], d[2]);
  o[1] = _mm256_add_ps(d[1], d[2]);
  o[2] = _mm256_sub_ps(d[2], d[1]);
  o[3] = _mm256_sub_ps(d[1], d[3]);
}

// A^T of F(2x2, 3x3) applied to 4 values.
inline void at4(const __m256* m, __m256* y) {
  y[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[1]), m[2]);
  y[1] = _mm256_sub_ps(_mm256_sub_ps(m[1], m[2]), m[3]);
}

// B^T of F(4x4, 3x3) applied to 6 values (one column or row of a patch).
inline void bt6(const __m256* d, __m256* o) {
  const __m256 two = _mm256_set1_ps(2.0f), four = _mm256_set1_ps(4.0f);
  const __m256 five = _mm256_set1_ps(5.0f);
  const __m256 t1 = _mm256_fnmadd_ps(four, d[2], d[4]);  // d4 - 4 d2
  const __m256 t2 = _mm256_fnmadd_ps(four, d[1], d[3]);  // d3 - 4 d1
  const __m256 t3 = _mm256_sub_ps(d[4], d[2]);
  const __m256 t4 = _mm256_sub_ps(d[3], d[1]);
  o[0] = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  o[1] = _mm256_add_ps(t1, t2);
  o[2] = _mm256_sub_ps(t1, t2);
  o[3] = _mm256_fmadd_ps(two, t4, t3);
  o[4] = _mm256_fnmadd_ps(two, t4, t3);
  o[5] = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
}

// A^T of F(4x4, 3x3) applied to 6 values.
inline void at6(const __m256* m, __m256* y) {
  const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
  const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
  y[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
  y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), d34, d12);
  y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), s34, s12);
  y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), d34, d12), m[5]);
}

struct Call {
  const WinogradGeom* g;
  const WinogradPlan* p;
  const float* in;
  const float* packed;
  size_t mat;  // floats per position's packed weights
  const float* bias;
  DepthwiseEpilogue e;
  float* out;
};

using avx2_inl::transpose8;

template <int A>
inline void bt(const __m256* d, __m256* o) {
  if constexpr (A == 6) {
    bt6(d, o);
  } else {
    bt4(d, o);
  }
}

template <int A>
inline void at(const __m256* m, __m256* y) {
  if constexpr (A == 6) {
    at6(m, y);
  } else {
    at4(m, y);
  }
}

// V for panel `panel` of the block (16 lanes; only lanes [h0, h1), a
// multiple of 8 apart, are written), input channels [ci0, ci1), for tiles of
// M (patches of A = M + 2). Per 8 lanes, each patch row is one masked 8-float
// load per lane (the A columns inside the image; zero elsewhere), transposed
// to A lane vectors.
template <int M>
void input_panel(const Call& c, const Lane* lanes, int64_t panel, int64_t ci0, int64_t ci1,
                 float* v, int h0 = 0, int h1 = kPanel) {
  constexpr int A = M + 2;
  const WinogradGeom& g = *c.g;
  const int64_t c_in = g.c_in, plane = g.h * g.w;
  const size_t xi_stride = static_cast<size_t>(c.p->v_stride);
  alignas(32) float t[36][8];
  for (int h = h0; h < h1; h += 8) {
    const Lane* ln = lanes + panel * kPanel + h;
    __m256i mask[8];
    // Offset of each lane's patch origin (row y, column x, possibly
    // outside the image: only in-image elements are read).
    int64_t origin[8];
    // Whether every patch row of the 8 lanes lies inside the image (the
    // common case away from the top and bottom edges): then no lane's rows
    // are tested in the loop below. `inside` also needs all A columns inside
    // and the 8 floats read per row (the A and 8 - A past them, unused)
    // within the input for every channel: then plain loads replace the
    // masked ones.
    bool all_rows = true, inside = true;
    const int64_t input_end = g.batch * c_in * plane;
    for (int q = 0; q < 8; ++q) {
      mask[q] = _mm256_load_si256(reinterpret_cast<const __m256i*>(ln[q].mask));
      origin[q] = ln[q].in_base + (ln[q].y0 - g.ph) * g.w + (ln[q].x0 - g.pw);
      all_rows = all_rows && ln[q].r_lo == 0 && ln[q].r_hi == A;
      inside = inside && ln[q].mask[0] != 0 && ln[q].mask[A - 1] != 0 &&
               (c_in - 1) * plane + origin[q] + (A - 1) * g.w + 8 <= input_end;
    }
    inside = inside && all_rows;
    for (int64_t ci = ci0; ci < ci1; ++ci) {
      const float* src = c.in + ci * plane;
      // Rows: t[r][j] = (d B)[r][j].
      for (int r = 0; r < A; ++r) {
        __m256 d[8], o[A];
        const int64_t row = r * g.w;
        if (inside) {
          for (int q = 0; q < 8; ++q) d[q] = _mm256_loadu_ps(src + origin[q] + row);
        } else if (all_rows) {
          for (int q = 0; q < 8; ++q) d[q] = _mm256_maskload_ps(src + origin[q] + row, mask[q]);
        } else {
          for (int q = 0; q < 8; ++q) {
            d[q] = r >= ln[q].r_lo && r < ln[q].r_hi
                       ? _mm256_maskload_ps(src + origin[q] + row, mask[q])
                       : _mm256_setzero_ps();
          }
        }
        transpose8(d);
        bt<A>(d, o);
        for (int j = 0; j < A; ++j) _mm256_store_ps(t[r * A + j], o[j]);
      }
      // Columns: V[i][j] = (B^T t)[i][j].
      float* dst = v + panel * kPanel * c_in + ci * kPanel + h;
      for (int j = 0; j < A; ++j) {
        __m256 col[A], o[A];
        for (int r = 0; r < A; ++r) col[r] = _mm256_load_ps(t[r * A + j]);
        bt<A>(col, o);
        for (int i = 0; i < A; ++i) {
          _mm256_store_ps(dst + static_cast<size_t>(i * A + j) * xi_stride, o[i]);
        }
      }
    }
  }
}

// Output channels [c0, c0 + rows) from M (row r of position xi at
// m + xi * xi_stride + r * ldc), for the block's `ncols` lanes, tiles of M.
template <int M>
void output_rows(const Call& c, const Lane* lanes, int64_t ncols, int64_t c0, int64_t rows,
                 const float* m, size_t xi_stride, int64_t ldc) {
  const WinogradGeom& g = *c.g;
  const int64_t plane = g.oh * g.ow;
  const __m256 lo = _mm256_set1_ps(c.e.lo), hi = _mm256_set1_ps(c.e.hi);
  const bool clamp = c.e.lo > -__builtin_inff() || c.e.hi < __builtin_inff();
  constexpr int A = M + 2;
  alignas(32) float s[M][A][8];
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t co = c0 + r;
    const __m256 b = _mm256_set1_ps(c.bias == nullptr ? 0.0f : c.bias[co]);
    for (int64_t l0 = 0; l0 < ncols; l0 += 8) {
      const float* mr = m + r * ldc + l0;
      // Columns: s[i][k] = (A^T M)[i][k].
      for (int k = 0; k < A; ++k) {
        __m256 col[A], o[M];
        for (int i = 0; i < A; ++i) col[i] = _mm256_loadu_ps(mr + (i * A + k) * xi_stride);
        at<A>(col, o);
        for (int i = 0; i < M; ++i) _mm256_store_ps(s[i][k], o[i]);
      }
      // Rows: y[i][j] = (s A)[i][j] + bias, then the epilogue; y[i * M + j]
      // holds output (i, j) of the 8 tiles.
      __m256 y[16];
      for (int i = 0; i < M; ++i) {
        __m256 row[A], o[M];
        for (int k = 0; k < A; ++k) row[k] = _mm256_load_ps(s[i][k]);
        at<A>(row, o);
        for (int j = 0; j < M; ++j) {
          __m256 v = _mm256_add_ps(o[j], b);
          if (clamp) v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
          if (c.e.silu) v = avx2_inl::silu8(v);
          y[i * M + j] = v;
        }
      }
      if constexpr (M == 2) {
        // 2x2 tiles: stored element by element.
        alignas(32) float tile[4][8];
        for (int k = 0; k < 4; ++k) _mm256_store_ps(tile[k], y[k]);
        for (int q = 0; q < 8; ++q) {
          const Lane& ln = lanes[l0 + q];
          if (!ln.valid) continue;
          float* o = c.out + ln.out_base + co * plane + ln.y0 * g.ow + ln.x0;
          const int64_t vr = std::min<int64_t>(2, g.oh - ln.y0);
          const int64_t vc = std::min<int64_t>(2, g.ow - ln.x0);
          for (int64_t i = 0; i < vr; ++i, o += g.ow) {
            for (int64_t j = 0; j < vc; ++j) o[j] = tile[i * 2 + j][q];
          }
        }
        continue;
      }
      // Per tile: y[q] = output rows 0 and 1, y[8 + q] = rows 2 and 3.
      transpose8(y);
      transpose8(y + 8);
      for (int q = 0; q < 8; ++q) {
        const Lane& ln = lanes[l0 + q];
        if (!ln.valid) continue;
        float* o = c.out + ln.out_base + co * plane + ln.y0 * g.ow + ln.x0;
        const int64_t vr = std::min<int64_t>(4, g.oh - ln.y0);
        const int64_t vc = std::min<int64_t>(4, g.ow - ln.x0);
        if (vr == 4 && vc == 4) {
          _mm_storeu_ps(o, _mm256_castps256_ps128(y[q]));
          _mm_storeu_ps(o + g.ow, _mm256_extractf128_ps(y[q], 1));
          _mm_storeu_ps(o + 2 * g.ow, _mm256_castps256_ps128(y[8 + q]));
          _mm_storeu_ps(o + 3 * g.ow, _mm256_extractf128_ps(y[8 + q], 1));
          continue;
        }
        alignas(32) float tile[16];
        _mm256_store_ps(tile, y[q]);
        _mm256_store_ps(tile + 8, y[8 + q]);
        for (int64_t i = 0; i < vr; ++i, o += g.ow) {
          for (int64_t j = 0; j < vc; ++j) o[j] = tile[i * 4 + j];
        }
      }
    }
  }
}

// The lanes of block `blk` (its tiles' positions); returns the columns the
// products compute (the block's tiles rounded up to whole panels).
int64_t block_lanes(const Call& c, int64_t blk, Lane* lanes) {
  const WinogradGeom& g = *c.g;
  const WinogradPlan& p = *c.p;
  const int64_t tile = g.tile, span = tile + 2;
  const int64_t t0 = blk * p.block;
  const int64_t count = std::min(p.block, p.tiles - t0);
  const int64_t per_image = p.tiles_h * p.tiles_w;
  for (int64_t l = 0; l < p.block; ++l) {
    Lane& ln = lanes[l];
    ln.valid = l < count;
    if (!ln.valid) {
      ln.r_lo = ln.r_hi = 0;
      continue;
    }
    const int64_t t = t0 + l, b = t / per_image, in_image = t % per_image;
    ln.y0 = in_image / p.tiles_w * tile;
    ln.x0 = in_image % p.tiles_w * tile;
    ln.in_base = b * g.c_in * g.h * g.w;
    const int64_t y = ln.y0 - g.ph, x = ln.x0 - g.pw;
    ln.r_lo = static_cast<int>(std::min<int64_t>(span, std::max<int64_t>(0, -y)));
    ln.r_hi = static_cast<int>(std::max<int64_t>(ln.r_lo, std::min<int64_t>(span, g.h - y)));
    for (int k = 0; k < 8; ++k) ln.mask[k] = k < span && x + k >= 0 && x + k < g.w ? -1 : 0;
    ln.out_base = b * g.c_out * g.oh * g.ow;
  }
  return (count + kPanel - 1) / kPanel * kPanel;
}

// V of the block's `ncols` lanes for input channels [ci0, ci1).
void transform_input(const Call& c, const Lane* lanes, int64_t ncols, int64_t ci0, int64_t ci1,
                     float* v) {
  for (int64_t panel = 0; panel < ncols / kPanel; ++panel) {
    if (c.g->tile == 4) {
      input_panel<4>(c, lanes, panel, ci0, ci1, v);
    } else {
      input_panel<2>(c, lanes, panel, ci0, ci1, v);
    }
  }
}

// The products and the output transform of output channels [co_first,
// co_end) for the block whose V is at v, in chunks through M at m.
void products_and_output(const Call& c, const Lane* lanes, int64_t ncols, int64_t co_first,
                         int64_t co_end, const float* v, float* m, bool* failed) {
  const WinogradGeom& g = *c.g;
  const WinogradPlan& p = *c.p;
  const int64_t positions = (g.tile + 2) * (g.tile + 2);
  const size_t v_xi = static_cast<size_t>(p.v_stride);
  const size_t m_xi = static_cast<size_t>(p.m_stride);
  for (int64_t c0 = co_first; c0 < co_end; c0 += p.co_chunk) {
    const int64_t rows = std::min(p.co_chunk, co_end - c0);
    for (int64_t xi = 0; xi < positions; ++xi) {
      const PackedMatrix a{c.packed + xi * c.mat + c0 * g.c_in, rows, g.c_in};
      const PackedMatrix b{v + xi * v_xi, g.c_in, ncols};
      GemmArgs args;
      args.m = rows;
      args.n = ncols;
      args.k = g.c_in;
      args.packed_a = &a;
      args.packed_b = &b;
      args.c = m + xi * m_xi;
      args.ldc = ncols;
      // Both operands packed: no scratch taken, one thread.
      if (gemm(args, nullptr, nullptr) != Error::Ok)
        __atomic_store_n(failed, true, __ATOMIC_RELAXED);
    }
    if (g.tile == 4) {
      output_rows<4>(c, lanes, ncols, c0, rows, m, m_xi, ncols);
    } else {
      output_rows<2>(c, lanes, ncols, c0, rows, m, m_xi, ncols);
    }
  }
}

// Worker w's V and M in the scratch.
float* worker_v(const Call& c, char* scratch, int64_t w) {
  return reinterpret_cast<float*>(scratch + static_cast<size_t>(w) * c.p->worker_bytes);
}
float* worker_m(const Call& c, char* scratch, int64_t w) {
  const int64_t positions = (c.g->tile + 2) * (c.g->tile + 2);
  return worker_v(c, scratch, w) + positions * c.p->v_stride;
}

}  // namespace

bool winograd_available() { return cpu_features().avx2_fma; }

bool conv3x3_winograd_avx2(const WinogradGeom& g, const float* in, const float* packed,
                           const float* bias, const DepthwiseEpilogue& e, float* out, void* scratch,
                           size_t scratch_bytes, ThreadPool* pool, int64_t block) {
  const size_t threads = pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
  WinogradPlan p = plan_winograd(g, threads, block);
  if ((g.tile != 2 && g.tile != 4) || p.tiles <= 0 || p.block > kMaxBlock ||
      p.worker_bytes == SIZE_MAX) {
    return false;
  }
  // 64-byte aligned start; as many workers as the scratch holds.
  const uintptr_t at = reinterpret_cast<uintptr_t>(scratch);
  const size_t skip = (64 - at % 64) % 64;
  const size_t usable = scratch_bytes > skip ? scratch_bytes - skip : 0;
  const int64_t fit = static_cast<int64_t>(usable / p.worker_bytes);
  if (fit < 1) return false;
  p.workers = std::min(p.workers, fit);
  const size_t mat = winograd_weight_bytes(g.c_out, g.c_in, g.tile) /
                     (static_cast<size_t>((g.tile + 2) * (g.tile + 2)) * sizeof(float));
  const Call c{&g, &p, in, packed, mat, bias, e, out};
  char* base = static_cast<char*>(scratch) + skip;
  bool failed = false;
  const int64_t workers = p.workers;
  const size_t weight_bytes =
      mat * static_cast<size_t>((g.tile + 2) * (g.tile + 2)) * sizeof(float);
  if (workers == 2 && p.blocks == 1 && p.block == kPanel && p.tiles > 8 &&
      weight_bytes <= kLaneSplitMaxWeightBytes) {
    // One panel of 9 to 16 tiles (a 14x14 image in 4x4 tiles, 7x7 in 2x2)
    // on two threads: each takes 8 of its lanes through the whole
    // convolution (input transform, every output channel's products on the
    // GEMM's 8-column edge kernel, output transform) in its own V and M, so
    // no thread waits for the other or reads what the other wrote. Each
    // reads all of the transformed weights, hence only where they are small
    // (DenseNet-121's 128 -> 32 layers: 576 KiB; ResNet18's 512 -> 512 at
    // 7x7, 16 MiB, ran 1.9x slower this way). The per-lane operations are
    // those of the one-thread path.
    Lane lanes[kPanel];
    block_lanes(c, 0, lanes);
    // M holds co_chunk x 16 floats per position; with 8 columns, twice the
    // rows fit (fewer rounds of 36 products).
    WinogradPlan half = p;
    half.co_chunk = std::min(g.c_out, std::max<int64_t>(kRows, p.co_chunk * 2 / kRows * kRows));
    const Call ch{&g, &half, in, packed, mat, bias, e, out};
    parallel_for(pool, 2, 1, [&](size_t begin, size_t end) {
      for (size_t w = begin; w < end; ++w) {
        const int h0 = static_cast<int>(w) * 8;
        float* v = worker_v(c, base, static_cast<int64_t>(w));
        if (g.tile == 4) {
          input_panel<4>(ch, lanes, 0, 0, g.c_in, v, h0, h0 + 8);
        } else {
          input_panel<2>(ch, lanes, 0, 0, g.c_in, v, h0, h0 + 8);
        }
        // Columns h0 .. h0 + 8 of the packed panel: its rows stay kPanel apart.
        products_and_output(ch, lanes + h0, 8, 0, g.c_out, v + h0,
                            worker_m(c, base, static_cast<int64_t>(w)), &failed);
      }
    });
    return !failed;
  }
  if (p.co_blocks > 1 && p.blocks < workers) {
    // Fewer blocks than threads: per block, the threads first transform
    // disjoint input channel ranges into one V (worker 0's), then take one
    // output channel range each.
    Lane lanes[kMaxBlock];
    float* v = worker_v(c, base, 0);
    for (int64_t blk = 0; blk < p.blocks; ++blk) {
      const int64_t ncols = block_lanes(c, blk, lanes);
      parallel_for(pool, static_cast<size_t>(workers), 1, [&](size_t begin, size_t end) {
        for (size_t w = begin; w < end; ++w) {
          const int64_t i = static_cast<int64_t>(w);
          transform_input(c, lanes, ncols, i * g.c_in / workers, (i + 1) * g.c_in / workers, v);
        }
      });
      parallel_for(pool, static_cast<size_t>(workers), 1, [&](size_t begin, size_t end) {
        for (size_t w = begin; w < end; ++w) {
          // Worker w's M serves channel ranges w, w + workers, ...
          for (int64_t cb = static_cast<int64_t>(w); cb < p.co_blocks; cb += workers) {
            const int64_t co_first = cb * p.co_block;
            const int64_t co_end = std::min(g.c_out, co_first + p.co_block);
            products_and_output(c, lanes, ncols, co_first, co_end, v,
                                worker_m(c, base, static_cast<int64_t>(w)), &failed);
          }
        }
      });
    }
    return !failed;
  }
  // Work items (a block and an output channel range), contiguous ranges of
  // about equal cost per worker (winograd_first_item); a worker transforms a block's
  // input once for its items of it (a block split between two workers is
  // transformed by both).
  parallel_for(pool, static_cast<size_t>(workers), 1, [&](size_t begin, size_t end) {
    Lane lanes[kMaxBlock];
    for (size_t w = begin; w < end; ++w) {
      const int64_t i = static_cast<int64_t>(w);
      float* v = worker_v(c, base, i);
      float* m = worker_m(c, base, i);
      int64_t held = -1, ncols = 0;
      const int64_t last = winograd_first_item(g, p, i + 1, workers);
      for (int64_t item = winograd_first_item(g, p, i, workers); item < last; ++item) {
        const int64_t blk = item / p.co_blocks, cb = item % p.co_blocks;
        if (blk != held) {
          ncols = block_lanes(c, blk, lanes);
          transform_input(c, lanes, ncols, 0, g.c_in, v);
          held = blk;
        }
        const int64_t co_first = cb * p.co_block;
        products_and_output(c, lanes, ncols, co_first, std::min(g.c_out, co_first + p.co_block), v,
                            m, &failed);
      }
    }
  });
  return !failed;
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (winograd_available is false).

namespace etr {
namespace opt {

bool winograd_available() { return false; }

bool conv3x3_winograd_avx2(const WinogradGeom&, const float*, const float*, const float*,
                           const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*, int64_t) {
  return false;
}

}  // namespace opt
}  // namespace etr

#endif
