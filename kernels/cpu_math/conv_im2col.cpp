#include "kernels/cpu_math/conv_im2col.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/cpu_features.h"

namespace etr {
namespace opt {
namespace {

// Range [lo, hi) of positions p in [0, count) with 0 <= p * s + off < limit.
void valid_range(int64_t count, int64_t s, int64_t off, int64_t limit, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + s - 1) / s;
  const int64_t top = limit - 1 - off;
  *hi = top < 0 ? 0 : std::min(count, top / s + 1);
  if (*lo > *hi) *lo = *hi;
}

void zero(float* d, int64_t n) {
  if (n > 0) std::memset(d, 0, static_cast<size_t>(n) * sizeof(float));
}

// One row of the tile: kernel tap (ki, kj) of channel plane `plane`.
// `avx2`: stride-2 runs take copy_stride2_avx2.
void fill_row(const Im2colGeom& g, const float* plane, int64_t ki, int64_t kj, int64_t n0,
              int64_t nt, float* dst, bool avx2) {
  const int64_t hoff = ki * g.dh - g.ph, woff = kj * g.dw - g.pw;
  int64_t x_lo, x_hi;
  valid_range(g.ow, g.sw, woff, g.w, &x_lo, &x_hi);
  int64_t j = 0;
  int64_t oy = n0 / g.ow, ox = n0 % g.ow;
  while (j < nt) {
    const int64_t run = std::min(nt - j, g.ow - ox);  // pixels left in this output row
    float* d = dst + j;
    const int64_t iy = oy * g.sh + hoff;
    if (iy < 0 || iy >= g.h) {
      zero(d, run);
    } else {
      // Output columns [ox, ox + run) clipped to the valid [x_lo, x_hi).
      const int64_t a = std::max(ox, std::min(x_lo, ox + run));
      const int64_t b = std::max(a, std::min(x_hi, ox + run));
      zero(d, a - ox);
      const float* s = plane + iy * g.w + a * g.sw + woff;
      float* dv = d + (a - ox);
      if (g.sw == 1) {
        if (b > a) std::memcpy(dv, s, static_cast<size_t>(b - a) * sizeof(float));
      } else if (g.sw == 2 && avx2) {
        copy_stride2_avx2(s, b - a, dv);
      } else {
        for (int64_t x = 0; x < b - a; ++x) dv[x] = s[x * g.sw];
      }
      zero(d + (b - ox), ox + run - b);
    }
    j += run;
    ox = 0;
    ++oy;
  }
}

}  // namespace

void im2col_tile(const Im2colGeom& g, const float* in, int64_t n0, int64_t nt, float* dst,
                 ThreadPool* pool) {
  const int64_t taps = g.kh * g.kw;
  const int64_t rows = g.channels * taps;
  const int64_t plane = g.h * g.w;
  const bool avx2 = cpu_features().avx2_fma;
  // About 16 KiB of output per chunk.
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 4096 / std::max<int64_t>(nt, 1)));
  parallel_for(pool, static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
    for (int64_t r = static_cast<int64_t>(begin); r < static_cast<int64_t>(end); ++r) {
      const int64_t c = r / taps, t = r % taps;
      fill_row(g, in + c * plane, t / g.kw, t % g.kw, n0, nt, dst + r * nt, avx2);
    }
  });
}

bool patch_rows_supported(const Im2colGeom& g) {
  return g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1 && g.kh >= 1 && g.kw >= 1 &&
         (g.oh - 1) * g.sh + g.kh <= g.h && (g.ow - 1) * g.sw + g.kw <= g.w;
}

void patch_rows(const Im2colGeom& g, const float* in, int64_t n0, int64_t nt, float* dst,
                ThreadPool* pool) {
  const int64_t k = g.channels * g.kh * g.kw;
  const int64_t plane = g.h * g.w;
  const size_t row_bytes = static_cast<size_t>(g.kw) * sizeof(float);
  // About 16 KiB of output per chunk.
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 4096 / std::max<int64_t>(k, 1)));
  parallel_for(pool, static_cast<size_t>(nt), grain, [&](size_t begin, size_t end) {
    for (int64_t j = static_cast<int64_t>(begin); j < static_cast<int64_t>(end); ++j) {
      const int64_t oy = (n0 + j) / g.ow, ox = (n0 + j) % g.ow;
      const float* src = in + oy * g.sh * g.w + ox * g.sw;
      float* d = dst + j * k;
      for (int64_t c = 0; c < g.channels; ++c) {
        for (int64_t ki = 0; ki < g.kh; ++ki, d += g.kw) {
          std::memcpy(d, src + c * plane + ki * g.w, row_bytes);
        }
      }
    }
  });
}

void im2col_tile_packed(const Im2colGeom& g, const float* in, int64_t n0, int64_t nt, float* dst,
                        ThreadPool* pool) {
  constexpr int64_t kPanel = 16;  // util/gemm_internal.h kGemmNr
  // Columns per pass: one row's run is filled into a stack buffer (in L1),
  // then dealt out to the panels 16 floats at a time.
  constexpr int64_t kChunk = 256;
  const int64_t taps = g.kh * g.kw;
  const int64_t rows = g.channels * taps;
  const int64_t plane = g.h * g.w;
  const bool avx2 = cpu_features().avx2_fma;
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 4096 / std::max<int64_t>(nt, 1)));
  parallel_for(pool, static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
    alignas(64) float buf[kChunk];
    for (int64_t r = static_cast<int64_t>(begin); r < static_cast<int64_t>(end); ++r) {
      const int64_t c = r / taps, t = r % taps;
      for (int64_t j0 = 0; j0 < nt; j0 += kChunk) {
        const int64_t run = std::min(kChunk, nt - j0);
        fill_row(g, in + c * plane, t / g.kw, t % g.kw, n0 + j0, run, buf, avx2);
        // The last panel's columns past nt are zero.
        const int64_t padded = (run + kPanel - 1) / kPanel * kPanel;
        zero(buf + run, padded - run);
        for (int64_t j = 0; j < padded; j += kPanel) {
          float* d = dst + ((j0 + j) / kPanel) * kPanel * rows + r * kPanel;
          std::memcpy(d, buf + j, kPanel * sizeof(float));
        }
      }
    }
  });
}

}  // namespace opt
}  // namespace etr
