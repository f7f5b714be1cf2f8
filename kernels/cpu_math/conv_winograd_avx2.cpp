// The tiles and products of the Winograd convolution (conv_winograd.h),
// AVX2 + FMA.
//
// Input transform, per 16-tile panel and input channel: each tile's 6x6
// patch (zero outside the image) is gathered into a lane-major buffer
// (element (r, c) of tile l at [r * 6 + c][l]), then B^T d B runs on 8 tiles
// per vector, columns first, and the 36 results go to V_xi's packed panel
// (element (ci, l) at ci * 16 + l). Output transform, per output channel and
// 8 tiles: A^T M A from the 36 product rows, plus the bias, clamp and SiLU,
// into a lane-major 4x4 buffer that is scattered into the tiles' rows
// (clipped at the image's bottom and right edges).
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

// Where tile `l` of the block sits: its image's input and output offsets,
// its output origin; `valid` false for lanes past the last tile.
struct Lane {
  int64_t in_base = 0, out_base = 0;
  int64_t y0 = 0, x0 = 0;
  bool valid = false;
};

// B^T applied to 6 values (one column or row of a patch).
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

// A^T applied to 6 values.
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

// The 6x6 patches of 16 tiles for input channel ci, lane-major.
void gather(const Call& c, const Lane* lanes, int64_t ci, float (*d)[kPanel]) {
  const WinogradGeom& g = *c.g;
  const int64_t plane = g.h * g.w;
  for (int l = 0; l < kPanel; ++l) {
    const Lane& ln = lanes[l];
    if (!ln.valid) {
      for (int k = 0; k < 36; ++k) d[k][l] = 0.0f;
      continue;
    }
    const float* src = c.in + ln.in_base + ci * plane;
    const int64_t y = ln.y0 - g.ph, x = ln.x0 - g.pw;
    if (y >= 0 && y + 6 <= g.h && x >= 0 && x + 6 <= g.w) {
      const float* row = src + y * g.w + x;
      for (int r = 0; r < 6; ++r, row += g.w) {
        for (int k = 0; k < 6; ++k) d[r * 6 + k][l] = row[k];
      }
      continue;
    }
    for (int r = 0; r < 6; ++r) {
      const int64_t yy = y + r;
      const bool in_rows = yy >= 0 && yy < g.h;
      for (int k = 0; k < 6; ++k) {
        const int64_t xx = x + k;
        d[r * 6 + k][l] = in_rows && xx >= 0 && xx < g.w ? src[yy * g.w + xx] : 0.0f;
      }
    }
  }
}

// V for panel `panel` of the block (16 lanes), every input channel.
void input_panel(const Call& c, const Lane* lanes, int64_t panel, float* v) {
  const int64_t c_in = c.g->c_in;
  const size_t xi_stride = static_cast<size_t>(c_in * c.p->block);
  alignas(32) float d[36][kPanel];
  alignas(32) float t[36][8];
  for (int64_t ci = 0; ci < c_in; ++ci) {
    gather(c, lanes + panel * kPanel, ci, d);
    float* dst = v + panel * kPanel * c_in + ci * kPanel;
    for (int h = 0; h < kPanel; h += 8) {
      // Columns: t[i][k] = (B^T d)[i][k].
      for (int k = 0; k < 6; ++k) {
        __m256 col[6], o[6];
        for (int r = 0; r < 6; ++r) col[r] = _mm256_load_ps(&d[r * 6 + k][h]);
        bt6(col, o);
        for (int i = 0; i < 6; ++i) _mm256_store_ps(t[i * 6 + k], o[i]);
      }
      // Rows: V[i][j] = (t B)[i][j].
      for (int i = 0; i < 6; ++i) {
        __m256 row[6], o[6];
        for (int k = 0; k < 6; ++k) row[k] = _mm256_load_ps(t[i * 6 + k]);
        bt6(row, o);
        for (int j = 0; j < 6; ++j) {
          _mm256_store_ps(dst + static_cast<size_t>(i * 6 + j) * xi_stride + h, o[j]);
        }
      }
    }
  }
}

// Output channels [c0, c0 + rows) from M (row r of position xi at
// m + xi * xi_stride + r * ldc), for the block's `ncols` lanes.
void output_rows(const Call& c, const Lane* lanes, int64_t ncols, int64_t c0, int64_t rows,
                 const float* m, size_t xi_stride, int64_t ldc) {
  const WinogradGeom& g = *c.g;
  const int64_t plane = g.oh * g.ow;
  const __m256 lo = _mm256_set1_ps(c.e.lo), hi = _mm256_set1_ps(c.e.hi);
  const bool clamp = c.e.lo > -__builtin_inff() || c.e.hi < __builtin_inff();
  alignas(32) float s[4][6][8];
  alignas(32) float y[16][8];
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t co = c0 + r;
    const __m256 b = _mm256_set1_ps(c.bias == nullptr ? 0.0f : c.bias[co]);
    for (int64_t l0 = 0; l0 < ncols; l0 += 8) {
      const float* mr = m + r * ldc + l0;
      // Columns: s[i][k] = (A^T M)[i][k].
      for (int k = 0; k < 6; ++k) {
        __m256 col[6], o[4];
        for (int i = 0; i < 6; ++i) col[i] = _mm256_loadu_ps(mr + (i * 6 + k) * xi_stride);
        at6(col, o);
        for (int i = 0; i < 4; ++i) _mm256_store_ps(s[i][k], o[i]);
      }
      // Rows: y[i][j] = (s A)[i][j] + bias, then the epilogue.
      for (int i = 0; i < 4; ++i) {
        __m256 row[6], o[4];
        for (int k = 0; k < 6; ++k) row[k] = _mm256_load_ps(s[i][k]);
        at6(row, o);
        for (int j = 0; j < 4; ++j) {
          __m256 v = _mm256_add_ps(o[j], b);
          if (clamp) v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
          if (c.e.silu) v = avx2_inl::silu8(v);
          _mm256_store_ps(y[i * 4 + j], v);
        }
      }
      for (int q = 0; q < 8; ++q) {
        const Lane& ln = lanes[l0 + q];
        if (!ln.valid) continue;
        float* o = c.out + ln.out_base + co * plane + ln.y0 * g.ow + ln.x0;
        const int64_t vr = std::min<int64_t>(4, g.oh - ln.y0);
        const int64_t vc = std::min<int64_t>(4, g.ow - ln.x0);
        if (vr == 4 && vc == 4) {
          for (int i = 0; i < 4; ++i, o += g.ow) {
            o[0] = y[i * 4][q];
            o[1] = y[i * 4 + 1][q];
            o[2] = y[i * 4 + 2][q];
            o[3] = y[i * 4 + 3][q];
          }
          continue;
        }
        for (int64_t i = 0; i < vr; ++i, o += g.ow) {
          for (int64_t j = 0; j < vc; ++j) o[j] = y[i * 4 + j][q];
        }
      }
    }
  }
}

struct Worker {
  Call c;
  char* scratch;
  int64_t items;
  bool* failed;

  void run(int64_t w) const {
    const WinogradGeom& g = *c.g;
    const WinogradPlan& p = *c.p;
    float* v = reinterpret_cast<float*>(scratch + static_cast<size_t>(w) * p.worker_bytes);
    float* m = v + 36 * p.block * g.c_in;
    const size_t v_xi = static_cast<size_t>(g.c_in * p.block);
    const size_t m_xi = static_cast<size_t>(p.co_chunk * p.block);
    Lane lanes[kMaxBlock];
    int64_t held = -1, ncols = 0;
    const int64_t first = w * items / p.workers, end = (w + 1) * items / p.workers;
    for (int64_t item = first; item < end; ++item) {
      const int64_t blk = item / p.co_blocks, cb = item % p.co_blocks;
      if (blk != held) {
        const int64_t t0 = blk * p.block;
        const int64_t count = std::min(p.block, p.tiles - t0);
        const int64_t per_image = p.tiles_h * p.tiles_w;
        for (int64_t l = 0; l < p.block; ++l) {
          Lane& ln = lanes[l];
          ln.valid = l < count;
          if (!ln.valid) continue;
          const int64_t t = t0 + l, b = t / per_image, in_image = t % per_image;
          ln.y0 = in_image / p.tiles_w * 4;
          ln.x0 = in_image % p.tiles_w * 4;
          ln.in_base = b * g.c_in * g.h * g.w;
          ln.out_base = b * g.c_out * g.oh * g.ow;
        }
        ncols = (count + kPanel - 1) / kPanel * kPanel;
        for (int64_t panel = 0; panel < ncols / kPanel; ++panel) input_panel(c, lanes, panel, v);
        held = blk;
      }
      const int64_t co_first = cb * p.co_block;
      const int64_t co_end = std::min(g.c_out, co_first + p.co_block);
      for (int64_t c0 = co_first; c0 < co_end; c0 += p.co_chunk) {
        const int64_t rows = std::min(p.co_chunk, co_end - c0);
        for (int xi = 0; xi < 36; ++xi) {
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
          if (gemm(args, nullptr, nullptr) != Error::Ok) *failed = true;
        }
        output_rows(c, lanes, ncols, c0, rows, m, m_xi, ncols);
      }
    }
  }
};

}  // namespace

bool winograd_available() { return cpu_features().avx2_fma; }

bool conv3x3_winograd_avx2(const WinogradGeom& g, const float* in, const float* packed,
                           const float* bias, const DepthwiseEpilogue& e, float* out, void* scratch,
                           size_t scratch_bytes, ThreadPool* pool, int64_t block) {
  const size_t threads = pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
  WinogradPlan p = plan_winograd(g, threads, block);
  if (p.tiles <= 0 || p.block > kMaxBlock || p.worker_bytes == SIZE_MAX) return false;
  // 64-byte aligned start; as many workers as the scratch holds.
  const uintptr_t at = reinterpret_cast<uintptr_t>(scratch);
  const size_t skip = (64 - at % 64) % 64;
  const size_t usable = scratch_bytes > skip ? scratch_bytes - skip : 0;
  const int64_t fit = static_cast<int64_t>(usable / p.worker_bytes);
  if (fit < 1) return false;
  p.workers = std::min(p.workers, fit);
  const size_t mat = winograd_weight_bytes(g.c_out, g.c_in) / (36 * sizeof(float));
  bool failed = false;
  const Worker worker{Call{&g, &p, in, packed, mat, bias, e, out},
                      static_cast<char*>(scratch) + skip, p.blocks * p.co_blocks, &failed};
  parallel_for(pool, static_cast<size_t>(p.workers), 1, [&](size_t begin, size_t end) {
    for (size_t w = begin; w < end; ++w) worker.run(static_cast<int64_t>(w));
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
