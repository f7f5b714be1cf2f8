// Direct grouped convolution (conv_grouped.h), AVX2 + FMA.
//
// Work unit: one image, one group, one band of output rows. The band's input
// rows of the group are copied into scratch with the padding written as
// zeros (so no load needs a bounds check); then per block of 8 output
// channels, the band's output pixels are taken 8 at a time in row-major
// order (a block may cross output rows: an output plane is contiguous, so
// small planes such as 7x7 still fill whole blocks) and computed in
// registers: acc[q] holds the 8 output channels of pixel q,
// and every tap adds weights[tap] (8 channels, one load) times the input
// value under pixel q (a broadcast load). The 8 x 8 block is transposed in
// registers into 8 output rows. Weights are reordered once per call into
// [group][channel block][ci][ki][kj][8].
#include <algorithm>

#include "kernels/cpu_math/conv_grouped.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/scratch_slots.h"
#include "kernels/cpu_math/vec_math_avx2_inl.h"

namespace etr {
namespace opt {
namespace {

constexpr int64_t kMaxGroupInputs = 64;
// A band's padded input at most this many bytes (per thread).
constexpr size_t kBandBytes = size_t{192} << 10;
// Work units wanted per thread (chunks for the pool to even out).
constexpr int64_t kUnitsPerThread = 4;

// Width of a padded input row: output column x reads [x * sw, x * sw + span].
int64_t padded_width(const GroupedConvGeom& g) { return (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1; }

// Input rows of a band of `rows` output rows.
int64_t band_input_rows(const GroupedConvGeom& g, int64_t rows) {
  return (rows - 1) * g.sh + (g.kh - 1) * g.dh + 1;
}

size_t band_floats(const GroupedConvGeom& g, int64_t rows) {
  return static_cast<size_t>(g.c_in / g.groups) * static_cast<size_t>(band_input_rows(g, rows)) *
         static_cast<size_t>(padded_width(g));
}

// Output rows per band on `threads` threads: all of them unless the images
// and groups are too few to split evenly or a band's input is too large.
int64_t band_rows(const GroupedConvGeom& g, size_t threads) {
  const int64_t planes = g.batch * g.groups;
  int64_t rows = g.oh;
  while (rows > 1 &&
         planes * ((g.oh + rows - 1) / rows) < kUnitsPerThread * static_cast<int64_t>(threads)) {
    rows = (rows + 1) / 2;
  }
  while (rows > 1 && band_floats(g, rows) * sizeof(float) > kBandBytes) rows = (rows + 1) / 2;
  return rows;
}

size_t weight_floats(const GroupedConvGeom& g) {
  return static_cast<size_t>(g.c_out) * static_cast<size_t>(g.c_in / g.groups) *
         static_cast<size_t>(g.kh * g.kw);
}

size_t round16(size_t floats) { return (floats + 15) & ~size_t{15}; }

using avx2_inl::transpose8;

struct Epi {
  __m256 lo, hi;
  bool clamp, silu;
};

// What one block of output pixels reads: the band's padded input (`pad`,
// rows of `pitch` floats, `rows_in` per input channel) and the reordered
// weights of one channel block (`wb`: [ci][ki][kj][8]).
struct BlockArgs {
  const float* pad;
  int64_t pitch, rows_in, icg;
  int64_t kh, kw, dh, dw;
  const float* wb;
  __m256 bias;
};

// 8 output pixels into acc: pixel q's window starts at px[q] in the padded
// input (any pixels of the band: a block may cross output rows). KH / KW:
// the filter size when known at compile time (dilation 1), 0 otherwise.
template <int KH, int KW>
inline void block8(const BlockArgs& a, const float* const* px, __m256* acc) {
  for (int q = 0; q < 8; ++q) acc[q] = a.bias;
  const int64_t kh = KH != 0 ? KH : a.kh, kw = KW != 0 ? KW : a.kw;
  const int64_t dh = KH != 0 ? 1 : a.dh, dw = KW != 0 ? 1 : a.dw;
  const float* p0 = px[0];
  const float* p1 = px[1];
  const float* p2 = px[2];
  const float* p3 = px[3];
  const float* p4 = px[4];
  const float* p5 = px[5];
  const float* p6 = px[6];
  const float* p7 = px[7];
  const float* wp = a.wb;
  for (int64_t ci = 0; ci < a.icg; ++ci) {
    for (int64_t ki = 0; ki < kh; ++ki) {
      const int64_t row = (ci * a.rows_in + ki * dh) * a.pitch;
#pragma GCC unroll 8
      for (int64_t kj = 0; kj < kw; ++kj) {
        const __m256 wv = _mm256_loadu_ps(wp);
        wp += 8;
        const int64_t o = row + kj * dw;
        acc[0] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p0 + o), acc[0]);
        acc[1] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p1 + o), acc[1]);
        acc[2] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p2 + o), acc[2]);
        acc[3] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p3 + o), acc[3]);
        acc[4] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p4 + o), acc[4]);
        acc[5] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p5 + o), acc[5]);
        acc[6] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p6 + o), acc[6]);
        acc[7] = _mm256_fmadd_ps(wv, _mm256_broadcast_ss(p7 + o), acc[7]);
      }
    }
  }
}

inline __m256 finish(__m256 v, const Epi& e) {
  if (e.clamp) v = _mm256_min_ps(e.hi, _mm256_max_ps(e.lo, v));
  if (e.silu) v = avx2_inl::silu8(v);
  return v;
}

// Output pixels [0, n) of a band (n = its rows * ow, contiguous in each
// output plane) of one channel block, 8 at a time: out points at channel 0
// of the block, the band's first pixel; `plane`: floats between channels.
// sh / sw: the strides.
template <int KH, int KW>
void band_blocks(const BlockArgs& a, int64_t n, int64_t ow, int64_t sh, int64_t sw, const Epi& e,
                 float* out, int64_t plane) {
  __m256 acc[8];
  const float* px[8];
  int64_t y = 0, x = 0;  // the block's first pixel
  for (int64_t p = 0; p < n; p += 8) {
    // Window starts of pixels p .. p + 7; past n, the last pixel again.
    int64_t yq = y, xq = x;
    for (int q = 0; q < 8; ++q) {
      px[q] = a.pad + yq * sh * a.pitch + xq * sw;
      if (p + q + 1 < n && ++xq == ow) {
        xq = 0;
        ++yq;
      }
    }
    block8<KH, KW>(a, px, acc);
    for (int q = 0; q < 8; ++q) acc[q] = finish(acc[q], e);
    transpose8(acc);
    const int64_t count = std::min<int64_t>(8, n - p);
    if (count == 8) {
      for (int o = 0; o < 8; ++o) _mm256_storeu_ps(out + o * plane + p, acc[o]);
    } else {
      alignas(32) float lanes[8];
      for (int o = 0; o < 8; ++o) {
        _mm256_store_ps(lanes, acc[o]);
        for (int64_t q = 0; q < count; ++q) out[o * plane + p + q] = lanes[q];
      }
    }
    x += 8;
    while (x >= ow) {
      x -= ow;
      ++y;
    }
  }
}

// dst[0, n) = src[0, n) (short runs: no library call).
inline void copy_floats(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_loadu_ps(src + i));
  for (; i < n; ++i) dst[i] = src[i];
}

// dst[0, n) = 0 (short runs: no library call).
inline void zero_floats(float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_setzero_ps());
  for (; i < n; ++i) dst[i] = 0.0f;
}

// The group's input rows [iy0, iy0 + rows_in) into `pad` (zero outside the
// image), each padded row `pitch` wide with column j reading input column
// j - pw.
void copy_band(const GroupedConvGeom& g, const float* in, int64_t iy0, int64_t rows_in,
               int64_t pitch, float* pad) {
  const int64_t icg = g.c_in / g.groups;
  const int64_t j0 = std::min(pitch, std::max<int64_t>(0, g.pw));
  const int64_t j1 = std::max(j0, std::min(pitch, g.pw + g.w));
  for (int64_t ci = 0; ci < icg; ++ci) {
    for (int64_t r = 0; r < rows_in; ++r) {
      float* dst = pad + (ci * rows_in + r) * pitch;
      const int64_t iy = iy0 + r;
      if (iy < 0 || iy >= g.h) {
        zero_floats(dst, pitch);
        continue;
      }
      const float* src = in + (ci * g.h + iy) * g.w;
      zero_floats(dst, j0);
      // Padded column j reads input column j - pw (j1 > j0 only when j0 == pw).
      if (j1 > j0) copy_floats(dst + j0, src + (j0 - g.pw), j1 - j0);
      zero_floats(dst + j1, pitch - j1);
    }
  }
}

}  // namespace

// Weights [c_out, icg, kh, kw] into [block of 8][ci][ki][kj][8] (blocks
// never straddle groups: ocg % 8 == 0).
void conv_grouped_pack(const GroupedConvGeom& g, const float* w, float* dst) {
  const int64_t icg = g.c_in / g.groups, taps = g.kh * g.kw;
  const int64_t blocks = g.c_out / 8;
  for (int64_t b = 0; b < blocks; ++b) {
    float* d = dst + b * 8 * icg * taps;
    for (int64_t ci = 0; ci < icg; ++ci) {
      for (int64_t t = 0; t < taps; ++t) {
        for (int64_t o = 0; o < 8; ++o)
          d[(ci * taps + t) * 8 + o] = w[((b * 8 + o) * icg + ci) * taps + t];
      }
    }
  }
}

namespace {

using BandFn = void (*)(const BlockArgs&, int64_t, int64_t, int64_t, int64_t, const Epi&, float*,
                        int64_t);

}  // namespace

bool conv_grouped_supported(const GroupedConvGeom& g) {
  if (g.groups < 2 || g.c_in % g.groups != 0 || g.c_out % g.groups != 0) return false;
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  if (icg < 1 || icg > kMaxGroupInputs || ocg % 8 != 0 || ocg == 0) return false;
  if (g.batch < 1 || g.h < 1 || g.w < 1 || g.oh < 1 || g.ow < 1 || g.kh < 1 || g.kw < 1) {
    return false;
  }
  if (g.kh > 64 || g.kw > 64 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.ph < 0 ||
      g.pw < 0) {
    return false;
  }
  // The output must be what the geometry gives (every read inside the band).
  const int64_t span_h = g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1;
  const int64_t span_w = g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  if (span_h < 0 || span_w < 0 || g.oh != span_h / g.sh + 1 || g.ow != span_w / g.sw + 1) {
    return false;
  }
  // Offsets stay far inside int64_t and one band's rows fit a slot.
  return g.h < (int64_t{1} << 24) && g.w < (int64_t{1} << 24) && g.sw < (int64_t{1} << 16) &&
         g.sh < (int64_t{1} << 16) && g.dh < (int64_t{1} << 16) && g.dw < (int64_t{1} << 16) &&
         g.c_out < (int64_t{1} << 24) && g.batch < (int64_t{1} << 24);
}

size_t conv_grouped_packed_floats(const GroupedConvGeom& g) { return weight_floats(g); }

size_t conv_grouped_scratch_bytes(const GroupedConvGeom& g, size_t threads, bool packed) {
  const size_t t = std::max<size_t>(1, threads);
  const size_t slot = round16(band_floats(g, band_rows(g, t)));
  return ((packed ? 0 : round16(weight_floats(g))) + t * slot) * sizeof(float);
}

void conv_grouped_avx2(const GroupedConvGeom& g, const float* in, const float* weight,
                       const float* packed, const float* bias, const DepthwiseEpilogue& epilogue,
                       float* out, void* scratch, size_t scratch_bytes, ThreadPool* pool) {
  size_t threads = pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
  while (threads > 1 && conv_grouped_scratch_bytes(g, threads, packed != nullptr) > scratch_bytes) {
    --threads;
  }
  const int64_t rows = band_rows(g, threads);
  const int64_t bands = (g.oh + rows - 1) / rows;
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  const int64_t units = g.batch * g.groups * bands;
  // A scratch slot per thread; units claimed in chunks as threads come free.
  ScratchSlots slots(threads);
  const int64_t pitch = padded_width(g), plane = g.oh * g.ow;
  float* slot_base = static_cast<float*>(scratch);
  const float* wr = packed;
  if (wr == nullptr) {
    conv_grouped_pack(g, weight, slot_base);
    wr = slot_base;
    slot_base += round16(weight_floats(g));
  }
  const size_t slot_floats = round16(band_floats(g, rows));
  const bool k3 = g.kh == 3 && g.kw == 3 && g.dh == 1 && g.dw == 1;
  const BandFn band_fn = k3 ? &band_blocks<3, 3> : &band_blocks<0, 0>;
  Epi e;
  e.lo = _mm256_set1_ps(epilogue.lo);
  e.hi = _mm256_set1_ps(epilogue.hi);
  e.clamp = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  e.silu = epilogue.silu;
  const int64_t wblock = 8 * icg * g.kh * g.kw;  // reordered floats per channel block
  const bool avx512 = cpu_features().avx512f;
  parallel_for(pool, static_cast<size_t>(units), 1, [&](size_t u0, size_t u1) {
    bool fresh = false;  // every band copy writes its whole slot
    const size_t sl = slots.acquire(&fresh);
    float* pad = slot_base + sl * slot_floats;
    for (int64_t u = static_cast<int64_t>(u0); u < static_cast<int64_t>(u1); ++u) {
      const int64_t band = u % bands, plane_index = u / bands;
      const int64_t gi = plane_index % g.groups, b = plane_index / g.groups;
      const int64_t y0 = band * rows, y1 = std::min(g.oh, y0 + rows);
      const int64_t rows_in = band_input_rows(g, y1 - y0);
      const float* x = in + (b * g.c_in + gi * icg) * g.h * g.w;
      if (avx512) {
        conv_grouped_copy_band_avx512(g, x, y0 * g.sh - g.ph, rows_in, pitch, pad);
      } else {
        copy_band(g, x, y0 * g.sh - g.ph, rows_in, pitch, pad);
      }
      for (int64_t ob = 0; ob < ocg / 8; ++ob) {
        const int64_t co = gi * ocg + ob * 8;
        BlockArgs a;
        a.pad = pad;
        a.pitch = pitch;
        a.rows_in = rows_in;
        a.icg = icg;
        a.kh = g.kh;
        a.kw = g.kw;
        a.dh = g.dh;
        a.dw = g.dw;
        a.wb = wr + (co / 8) * wblock;
        a.bias = bias == nullptr ? _mm256_setzero_ps() : _mm256_loadu_ps(bias + co);
        float* o = out + (b * g.c_out + co) * plane + y0 * g.ow;
        band_fn(a, (y1 - y0) * g.ow, g.ow, g.sh, g.sw, e, o, plane);
      }
    }
    slots.release(sl);
  });
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (conv_grouped_supported is false).

namespace etr {
namespace opt {

bool conv_grouped_supported(const GroupedConvGeom&) { return false; }

size_t conv_grouped_packed_floats(const GroupedConvGeom&) { return 0; }

void conv_grouped_pack(const GroupedConvGeom&, const float*, float*) {}

size_t conv_grouped_scratch_bytes(const GroupedConvGeom&, size_t, bool) { return 0; }

void conv_grouped_avx2(const GroupedConvGeom&, const float*, const float*, const float*,
                       const float*, const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*) {
}

}  // namespace opt
}  // namespace etr

#endif
