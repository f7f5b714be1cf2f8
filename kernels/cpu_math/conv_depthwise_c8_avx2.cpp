// Channel-blocked depthwise kernel for small planes (conv_depthwise.h,
// depthwise_c8_avx2), AVX2 + FMA.
//
// Per image and block of 8 channels: the 8 input planes are interleaved
// into a zero-padded copy [h + 2p][w + 2p][8] (8 flat pixels at a time: 8
// loads, one 8 x 8 transpose, 8 stores at the pixels' padded places; the
// borders are zeroed once per call and never written). Output rows are
// then taken 8 pixels at a time, acc[q] holding the 8 channels of pixel q:
// per filter row K weight vectors, and each input vector loaded once and
// multiplied into every pixel whose window covers it. The epilogue (clamp,
// SiLU) runs on the registers, and an 8 x 8 transpose turns the block into
// 8 consecutive outputs of each of the 8 channel planes.
#include "kernels/cpu_math/conv_depthwise.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/scratch_slots.h"
#include "kernels/cpu_math/vec_math_avx2_inl.h"

namespace etr {
namespace opt {
namespace {

using avx2_inl::transpose8;

// Lanes [0, n) of 8.
inline __m256i first_lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// A whole padded plane copy at most this large (MobileNet's 112x112 planes
// measured faster whole than in bands); larger planes run in bands of
// output rows, each with a padded copy of just the input rows it reads.
constexpr size_t kWholePlaneBytes = size_t{512} << 10;
// Bytes of one band's padded copy (about).
constexpr size_t kBandBytes = size_t{96} << 10;

int64_t band_input_rows(const DepthwiseGeom& g, int64_t rows) { return (rows - 1) * g.sh + g.kh; }

// Output rows per band: all of them when the whole padded plane fits
// kWholePlaneBytes, else as many as keep the band's copy near kBandBytes.
int64_t band_rows(const DepthwiseGeom& g) {
  const size_t row_bytes = static_cast<size_t>(g.w + 2 * g.pw) * 8 * sizeof(float);
  if (static_cast<size_t>(g.h + 2 * g.ph) * row_bytes <= kWholePlaneBytes) return g.oh;
  int64_t rows = 1;
  while (rows < g.oh &&
         static_cast<size_t>(band_input_rows(g, rows + 1)) * row_bytes <= kBandBytes) {
    ++rows;
  }
  return rows;
}

// Floats of one padded copy: a band's input rows (the whole plane with its
// zero rows, when one band) of (w + 2p) pixels of 8, and the slack the last
// row's last block reads past it (up to 8 * S + K pixels, zero).
size_t block_floats(const DepthwiseGeom& g) {
  const int64_t rows = band_rows(g);
  const int64_t in_rows = rows == g.oh ? g.h + 2 * g.ph : band_input_rows(g, rows);
  return (static_cast<size_t>(in_rows) * static_cast<size_t>(g.w + 2 * g.pw) +
          static_cast<size_t>(8 * g.sw + g.kw)) *
         8;
}

// Input rows [iy0, iy0 + rows) of the 8 channel planes at `in` (n floats
// apart, w wide, row iy at (iy - row0) * w) into padded rows 0.. of `pad`
// (wp pixels each, the data from pixel p; the border columns stay zero);
// rows outside [0, h) are written as zeros.
void interleave_rows(const float* in, int64_t h, int64_t w, int64_t iy0, int64_t rows, int64_t p,
                     int64_t wp, float* pad, int64_t n, int64_t row0) {
  __m256 v[8];
  for (int64_t i = 0; i < rows; ++i) {
    float* d = pad + (i * wp + p) * 8;
    const int64_t iy = iy0 + i;
    if (iy < 0 || iy >= h) {
      for (int64_t j = 0; j < w * 8; j += 8) _mm256_storeu_ps(d + j, _mm256_setzero_ps());
      continue;
    }
    const float* src = in + (iy - row0) * w;
    int64_t x = 0;
    for (; x + 8 <= w; x += 8) {
      for (int c = 0; c < 8; ++c) v[c] = _mm256_loadu_ps(src + c * n + x);
      transpose8(v);
      for (int j = 0; j < 8; ++j) _mm256_storeu_ps(d + (x + j) * 8, v[j]);
    }
    if (x < w) {
      const __m256i m = first_lanes(w - x);
      for (int c = 0; c < 8; ++c) v[c] = _mm256_maskload_ps(src + c * n + x, m);
      transpose8(v);
      for (int64_t j = 0; j < w - x; ++j) _mm256_storeu_ps(d + (x + j) * 8, v[j]);
    }
  }
}

// The 8 channel planes at `in` (plane floats apart, h x w) into the
// interior of the padded block `pad` (rows of wp pixels, p pixels of
// border).
void interleave(const float* in, int64_t h, int64_t w, int64_t p, int64_t wp, float* pad) {
  const int64_t n = h * w;
  float* d = pad + (p * wp + p) * 8;
  int64_t x = 0;  // column of the next pixel stored
  auto put = [&](__m256 v) {
    _mm256_storeu_ps(d, v);
    d += 8;
    if (++x == w) {
      x = 0;
      d += 2 * p * 8;
    }
  };
  __m256 v[8];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int c = 0; c < 8; ++c) v[c] = _mm256_loadu_ps(in + c * n + i);
    transpose8(v);
    for (int j = 0; j < 8; ++j) put(v[j]);
  }
  if (i < n) {
    const __m256i m = first_lanes(n - i);
    for (int c = 0; c < 8; ++c) v[c] = _mm256_maskload_ps(in + c * n + i, m);
    transpose8(v);
    for (int64_t j = 0; j < n - i; ++j) put(v[j]);
  }
}

struct Epi {
  __m256 lo, hi;
  bool clamp, silu;
};

inline __m256 finish(__m256 v, const Epi& e) {
  if (e.clamp) v = _mm256_min_ps(e.hi, _mm256_max_ps(e.lo, v));
  if (e.silu) v = avx2_inl::silu8(v);
  return v;
}

// All outputs of one channel block: `wk` the weights [K * K][8], `out` the
// block's first channel plane (plane floats apart). Each output row is
// taken 8 pixels at a time (the last block of a row may run past it: its
// extra pixels read the padding, the next row or the slack after the copy,
// and are not stored). Along a filter row the 8 pixels' windows overlap:
// input vector j serves pixel q at tap kj = j - q * S, so a filter row
// loads 7 * S + K input vectors instead of 8 * K.
template <int K, int S>
void compute_block(const float* pad, int64_t wp, int64_t oh, int64_t ow, const float* wk,
                   __m256 bias, const Epi& e, float* out, int64_t plane) {
  constexpr int kSpan = 7 * S + K;  // input vectors per filter row
  __m256 acc[8];
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; x += 8) {
      const float* base = pad + (y * S * wp + x * S) * 8;
      for (int q = 0; q < 8; ++q) acc[q] = bias;
#pragma GCC unroll 5
      for (int ki = 0; ki < K; ++ki) {
        const float* row = base + ki * wp * 8;
        __m256 wv[K];
#pragma GCC unroll 5
        for (int kj = 0; kj < K; ++kj) wv[kj] = _mm256_load_ps(wk + (ki * K + kj) * 8);
#pragma GCC unroll 19
        for (int j = 0; j < kSpan; ++j) {
          const __m256 v = _mm256_loadu_ps(row + j * 8);
#pragma GCC unroll 8
          for (int q = 0; q < 8; ++q) {
            const int kj = j - q * S;
            if (kj >= 0 && kj < K) acc[q] = _mm256_fmadd_ps(v, wv[kj], acc[q]);
          }
        }
      }
      for (int q = 0; q < 8; ++q) acc[q] = finish(acc[q], e);
      transpose8(acc);
      float* o = out + y * ow + x;
      const int64_t count = std::min<int64_t>(8, ow - x);
      if (count == 8 || y * ow + x + 8 <= oh * ow) {
        // A short block whose 8 stores stay inside the plane writes its
        // extra pixels over the start of the following rows of the same
        // plane, which are computed (and stored) after it. (Masked stores
        // are slow on AMD.)
        for (int c = 0; c < 8; ++c) _mm256_storeu_ps(o + c * plane, acc[c]);
      } else {
        alignas(32) float lanes[8];
        for (int c = 0; c < 8; ++c) {
          _mm256_store_ps(lanes, acc[c]);
          for (int64_t i = 0; i < count; ++i) o[c * plane + i] = lanes[i];
        }
      }
    }
  }
}

using BlockFn = void (*)(const float*, int64_t, int64_t, int64_t, const float*, __m256, const Epi&,
                         float*, int64_t);

// compute_block for a K x K filter (3 or 5) at stride S (1 or 2).
BlockFn block_fn(int64_t k, int64_t s) {
  return k == 3 ? (s == 1 ? &compute_block<3, 1> : &compute_block<3, 2>)
                : (s == 1 ? &compute_block<5, 1> : &compute_block<5, 2>);
}

Epi make_epi(const DepthwiseEpilogue& epilogue) {
  Epi e;
  e.lo = _mm256_set1_ps(epilogue.lo);
  e.hi = _mm256_set1_ps(epilogue.hi);
  e.clamp = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  e.silu = epilogue.silu;
  return e;
}

}  // namespace

bool depthwise_c8_supported(const DepthwiseGeom& g) {
  // Measured against the flat kernel (CPU time, Zen 4): faster on every
  // layer of MobileNetV2/V3 and EfficientNet-B0 (1.1-1.4x on 3x3 stride 1,
  // 1.4-2x on 5x5, 1.2-3x on stride 2) except the stride-2 ones over more
  // than 32x32 outputs (0.9x: the copy of a 4x larger input dominates).
  const int64_t outputs = g.oh * g.ow;
  const bool wins = g.sh == 1 || outputs <= 1024;
  return depthwise_direct_supported(g) && g.channels % 8 == 0 && g.channels > 0 && wins &&
         outputs <= kDepthwiseC8MaxPlane && g.h * g.w <= 4 * kDepthwiseC8MaxPlane;
}

bool depthwise_c8_band_supported(const DepthwiseGeom& g) {
  return depthwise_direct_supported(g) && g.channels % 8 == 0 && g.channels > 0 && g.batch == 1;
}

bool depthwise_c8_in_place(const DepthwiseGeom& g) {
  return depthwise_c8_supported(g) && g.sh == 1 && g.sw == 1 && g.oh == g.h && g.ow == g.w &&
         band_rows(g) == g.oh;
}

size_t depthwise_c8_scratch_bytes(const DepthwiseGeom& g, size_t threads) {
  const size_t blocks = static_cast<size_t>(std::max<int64_t>(1, g.batch * g.channels / 8));
  return block_floats(g) * std::max<size_t>(1, std::min(threads, blocks)) * sizeof(float);
}

void depthwise_c8_avx2(const DepthwiseGeom& g, const float* in, const float* weight,
                       const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                       void* scratch, size_t scratch_bytes, ThreadPool* pool) {
  const int64_t k = g.kh, s = g.sh, p = g.ph;
  const int64_t wp = g.w + 2 * p;
  const int64_t cb = g.channels / 8, units = g.batch * cb;
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  const size_t per_slot = block_floats(g);
  const int64_t band = band_rows(g);
  // A scratch slot per thread (fewer when scratch is short); chunks of
  // blocks claimed dynamically, small layers (under ~8192 outputs per chunk)
  // in fewer, larger chunks.
  const size_t threads = pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
  ScratchSlots slots(std::max<size_t>(
      1, std::min(threads, scratch_bytes / sizeof(float) / std::max<size_t>(1, per_slot))));
  const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 8192 / (8 * out_plane)));
  const BlockFn fn = block_fn(k, s);
  const Epi e = make_epi(epilogue);
  float* base = static_cast<float*>(scratch);
  parallel_for(pool, static_cast<size_t>(units), grain, [&](size_t u0, size_t u1) {
    alignas(32) float wk[25 * 8];
    bool fresh = false;
    const size_t sl = slots.acquire(&fresh);
    float* pad = base + sl * per_slot;
    // The borders stay zero: every block is written over the same interior.
    if (fresh) std::memset(pad, 0, per_slot * sizeof(float));
    for (int64_t u = static_cast<int64_t>(u0); u < static_cast<int64_t>(u1); ++u) {
      const int64_t b = u / cb, c0 = (u % cb) * 8;
      for (int64_t t = 0; t < k * k; ++t) {
        for (int c = 0; c < 8; ++c) wk[t * 8 + c] = weight[(c0 + c) * k * k + t];
      }
      const __m256 vb = bias == nullptr ? _mm256_setzero_ps() : _mm256_loadu_ps(bias + c0);
      const float* src = in + (b * g.channels + c0) * in_plane;
      float* dst = out + (b * g.channels + c0) * out_plane;
      if (band == g.oh) {
        interleave(src, g.h, g.w, p, wp, pad);
        fn(pad, wp, g.oh, g.ow, wk, vb, e, dst, out_plane);
        continue;
      }
      for (int64_t y0 = 0; y0 < g.oh; y0 += band) {
        const int64_t rows = std::min(band, g.oh - y0);
        interleave_rows(src, g.h, g.w, y0 * s - p, band_input_rows(g, rows), p, wp, pad, in_plane,
                        0);
        fn(pad, wp, rows, g.ow, wk, vb, e, dst + y0 * g.ow, out_plane);
      }
    }
    slots.release(sl);
  });
}

size_t depthwise_c8_band_floats(const DepthwiseGeom& g, int64_t rows) {
  return (static_cast<size_t>(band_input_rows(g, rows)) * static_cast<size_t>(g.w + 2 * g.pw) +
          static_cast<size_t>(8 * g.sw + g.kw)) *
         8;
}

void depthwise_c8_pack_weights(const DepthwiseGeom& g, const float* weight, float* wk) {
  const int64_t taps = g.kh * g.kw;
  for (int64_t c0 = 0; c0 < g.channels; c0 += 8) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int c = 0; c < 8; ++c) wk[c0 * taps + t * 8 + c] = weight[(c0 + c) * taps + t];
    }
  }
}

void depthwise_c8_band_avx2(const DepthwiseGeom& g, const float* in, int64_t in_stride,
                            int64_t in_row0, int64_t y0, int64_t rows, const float* wk,
                            const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                            float* pad) {
  const int64_t k = g.kh, s = g.sh, p = g.ph;
  const int64_t wp = g.w + 2 * p, out_plane = g.oh * g.ow;
  const BlockFn fn = block_fn(k, s);
  const Epi e = make_epi(epilogue);
  const int64_t in_rows = band_input_rows(g, rows);
  for (int64_t c0 = 0; c0 < g.channels; c0 += 8) {
    const __m256 vb = bias == nullptr ? _mm256_setzero_ps() : _mm256_loadu_ps(bias + c0);
    interleave_rows(in + c0 * in_stride, g.h, g.w, y0 * s - p, in_rows, p, wp, pad, in_stride,
                    in_row0);
    fn(pad, wp, rows, g.ow, wk + c0 * k * k, vb, e, out + c0 * out_plane + y0 * g.ow, out_plane);
  }
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (depthwise_c8_supported is false).

namespace etr {
namespace opt {

bool depthwise_c8_supported(const DepthwiseGeom&) { return false; }

bool depthwise_c8_band_supported(const DepthwiseGeom&) { return false; }

bool depthwise_c8_in_place(const DepthwiseGeom&) { return false; }

size_t depthwise_c8_scratch_bytes(const DepthwiseGeom&, size_t) { return 0; }

void depthwise_c8_avx2(const DepthwiseGeom&, const float*, const float*, const float*,
                       const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*) {}

size_t depthwise_c8_band_floats(const DepthwiseGeom&, int64_t) { return 0; }

void depthwise_c8_pack_weights(const DepthwiseGeom&, const float*, float*) {}

void depthwise_c8_band_avx2(const DepthwiseGeom&, const float*, int64_t, int64_t, int64_t, int64_t,
                            const float*, const float*, const DepthwiseEpilogue&, float*, float*) {}

}  // namespace opt
}  // namespace etr

#endif
