// Direct depthwise kernels (AVX2 + FMA) for the layers of MobileNet-style
// networks: square 3x3 or 5x5 filters, padding k / 2, dilation 1, stride 1
// or 2. Each channel plane is copied once into zero-padded scratch (so no
// load needs a bounds check), computed 8 outputs per block over the whole
// plane as one flat run (no partial block per output row), and the epilogue
// (clamp, then SiLU per 512 outputs while they are in L1) is applied before
// the outputs leave the cache, so a fused convolution makes one pass over its
// output. Taps are summed per filter column; where a column's taps wrap
// around a row end, that column's sum is masked (bitwise: whatever was read,
// NaN included, is gone). Stride 1 and stride 2 (split into 4 phases, which
// makes it a stride-1 convolution) are described at their kernels below.
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

int64_t round8(int64_t v) { return (v + 7) & ~int64_t{7}; }

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

struct Clamp {
  __m256 lo, hi;
};

template <bool kClamp>
inline __m256 clamp(__m256 v, const Clamp& c) {
  // max/min return their second operand when either is NaN: NaN stays.
  return kClamp ? _mm256_min_ps(c.hi, _mm256_max_ps(c.lo, v)) : v;
}

// The first `count` (1..7) lanes of v to dst.
inline void store_part(float* dst, __m256 v, int64_t count) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  for (int64_t l = 0; l < count; ++l) dst[l] = lanes[l];
}

inline void store(float* dst, __m256 v, int64_t count) {
  if (count >= 8) {
    _mm256_storeu_ps(dst, v);
  } else {
    store_part(dst, v, count);
  }
}

// Outputs per SiLU pass (applied while they are in L1).
constexpr int64_t kSiluChunk = 512;

// x *= sigmoid(x) over n floats (in L1 after the block that wrote them).
void silu_inplace(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, avx2_inl::silu8(_mm256_loadu_ps(x + i)));
  if (i < n) {
    alignas(32) float lanes[8] = {};
    for (int64_t l = 0; l < n - i; ++l) lanes[l] = x[i + l];
    store_part(x + i, avx2_inl::silu8(_mm256_load_ps(lanes)), n - i);
  }
}

// ---- stride 1: flat

// Output p = y * w + x reads p + (ki - P) * w + kj - P, so 8 consecutive
// outputs take one load per tap, also across row ends (no partial block per
// row). The plane is copied into a zero-padded window (P * w + P either side)
// so every load is plain, and lanes whose column x + kj - P leaves the row
// drop filter column kj's sum through a mask; the masks repeat every
// w / gcd(w, 8) blocks and are made once per call.
int64_t flat_reach(const DepthwiseGeom& g) { return (g.kh / 2) * g.w + g.kh / 2; }

int64_t window_floats(const DepthwiseGeom& g) {
  return round8(2 * flat_reach(g) + round8(g.h * g.w) + 8);
}

// Blocks of 8 per period of the column masks: w / gcd(w, 8).
int64_t flat_period(int64_t w) {
  int64_t a = w, b = 8;
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return w / a;
}

// Column masks of the flat kernel: block b (mod period), filter column kj != P.
void make_flat_masks(const DepthwiseGeom& g, __m256* masks) {
  const int k = static_cast<int>(g.kh), p = k / 2;
  const int64_t period = flat_period(g.w);
  for (int64_t b = 0; b < period; ++b) {
    int idx = 0;
    for (int kj = 0; kj < k; ++kj) {
      if (kj == p) continue;
      alignas(32) int32_t lanes[8];
      for (int l = 0; l < 8; ++l) {
        const int64_t c = (b * 8 + l) % g.w + kj - p;
        lanes[l] = c >= 0 && c < g.w ? -1 : 0;
      }
      masks[b * (k - 1) + idx++] =
          _mm256_castsi256_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(lanes)));
    }
  }
}

// NB consecutive blocks of 8 outputs from p: filter row ki reads row[ki] at
// [p + kj]; column sums per kj, all but the middle one masked per block.
template <int K, int NB, bool kClamp>
inline void s1_blocks(const float* const* row, const __m256* wv, __m256 vb, const Clamp& cl,
                      const __m256* masks, int64_t mb, int64_t period, int64_t p, float* out,
                      int64_t count = 16) {
  constexpr int P = K / 2;
  __m256 acc[NB][K];
  for (int nb = 0; nb < NB; ++nb) {
    for (int kj = 0; kj < K; ++kj) acc[nb][kj] = kj == P ? vb : _mm256_setzero_ps();
  }
#pragma GCC unroll 8
  for (int ki = 0; ki < K; ++ki) {
#pragma GCC unroll 8
    for (int kj = 0; kj < K; ++kj) {
#pragma GCC unroll 2
      for (int nb = 0; nb < NB; ++nb) {
        acc[nb][kj] = _mm256_fmadd_ps(wv[ki * K + kj], _mm256_loadu_ps(row[ki] + p + kj + 8 * nb),
                                      acc[nb][kj]);
      }
    }
  }
  for (int nb = 0; nb < NB; ++nb) {
    int64_t b = mb + nb;
    if (b >= period) b -= period;
    const __m256* m = masks + b * (K - 1);
    __m256 s = acc[nb][P];
#pragma GCC unroll 8
    for (int kj = 0; kj < K; ++kj) {
      if (kj != P) s = _mm256_add_ps(s, _mm256_and_ps(acc[nb][kj], m[kj < P ? kj : kj - 1]));
    }
    store(out + p + 8 * nb, clamp<kClamp>(s, cl), count - 8 * nb);
  }
}

// `win`: the slot's window, zero outside [reach, reach + n).
template <int K, bool kClamp>
void plane_s1(const float* in, int64_t h, int64_t w, const float* wt, float bias, const Clamp& cl,
              const __m256* masks, bool silu, float* win, float* out) {
  constexpr int P = K / 2;
  const int64_t n = h * w, reach = P * w + P;
  copy_floats(win + reach, in, n);
  __m256 wv[K * K];
  for (int t = 0; t < K * K; ++t) wv[t] = _mm256_broadcast_ss(wt + t);
  const __m256 vb = _mm256_set1_ps(bias);
  // Filter row ki reads the window shifted by (ki - P) rows and -P columns.
  const float* row[K];
  for (int ki = 0; ki < K; ++ki) row[ki] = win + reach + (ki - P) * w - P;
  const int64_t period = flat_period(w);
  int64_t mb = 0;
  for (int64_t c = 0; c < n; c += kSiluChunk) {
    const int64_t end = std::min(n, c + kSiluChunk);
    int64_t p = c;
    for (; p + 16 <= end; p += 16) {
      s1_blocks<K, 2, kClamp>(row, wv, vb, cl, masks, mb, period, p, out);
      mb += 2;
      while (mb >= period) mb -= period;
    }
    for (; p < end; p += 8) {
      s1_blocks<K, 1, kClamp>(row, wv, vb, cl, masks, mb, period, p, out, end - p);
      if (++mb == period) mb = 0;
    }
    if (silu) silu_inplace(out + c, end - c);  // still in L1
  }
}

// ---- stride 2: polyphase, flat

// Input row 2y + d (d = ki - P) is row y + roff of row phase rp = d & 1
// (even or odd rows), roff = (d - rp) / 2; the same for columns. So the
// input is split into its 4 phases (even/odd rows x even/odd columns), each
// ow wide, with zero rows and columns where the input has none, and the
// convolution becomes a stride-1 one over them, run flat: output p = y * ow + x
// reads phase (rp, cp) at p + roff * ow + coff. A filter column with
// coff = -1 reads the previous row at x = 0, one with coff = +1 the next row
// at x = ow - 1: their sums are masked there (masks per block, repeating
// every ow / gcd(ow, 8) blocks, made once per call). A large plane is split
// per band of kBandRows output rows (phase rows y0 - 1 .. y0 + kBandRows), so
// a band's phases (about 16 KiB for a 56-wide output) stay in L1 while it is
// computed.
constexpr int64_t kBandRows = 16;         // a multiple of 8: bands start on whole blocks
constexpr int64_t kOneBandFloats = 8192;  // all 4 phases of a plane up to this: one band
constexpr int64_t kPhaseLead = 8;         // floats before a band's phase rows

// Output rows per band.
int64_t band_rows(int64_t oh, int64_t ow) {
  return 4 * (oh + 2) * ow <= kOneBandFloats ? oh : std::min(kBandRows, oh);
}

// Floats of one phase of a band: the lead, band_rows + 2 rows, and what the
// last block's loads read past them.
int64_t phase_floats_of(int64_t oh, int64_t ow) {
  return round8(kPhaseLead + (band_rows(oh, ow) + 2) * ow + 16);
}

int64_t phase_floats(const DepthwiseGeom& g) { return phase_floats_of(g.oh, g.ow); }

// Masks of the polyphase kernel: block b (mod period): x != 0, x != ow - 1.
void make_phase_masks(const DepthwiseGeom& g, __m256* masks) {
  const int64_t period = flat_period(g.ow);
  for (int64_t b = 0; b < period; ++b) {
    alignas(32) int32_t left[8], right[8];
    for (int l = 0; l < 8; ++l) {
      const int64_t x = (b * 8 + l) % g.ow;
      left[l] = x != 0 ? -1 : 0;
      right[l] = x != g.ow - 1 ? -1 : 0;
    }
    masks[2 * b] = _mm256_castsi256_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(left)));
    masks[2 * b + 1] =
        _mm256_castsi256_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(right)));
  }
}

// Input row r (w floats) into the even / odd column phases' row: 16 input
// columns per step, the last step through masked loads (zeros past w) and
// full stores, so up to 7 floats past the row's end (ow) are overwritten
// with zeros or this row's values: the next row, split after it, or the
// phase's tail (read only by lanes that are masked or not stored).
inline void split_row(const float* row, int64_t w, float* even, float* odd) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t x = 0; 2 * x < w; x += 8) {
    __m256 lo, hi;
    if (2 * x + 16 <= w) {
      lo = _mm256_loadu_ps(row + 2 * x);
      hi = _mm256_loadu_ps(row + 2 * x + 8);
    } else {
      const __m256i left = _mm256_set1_epi32(static_cast<int32_t>(w - 2 * x));
      lo = _mm256_maskload_ps(row + 2 * x, _mm256_cmpgt_epi32(left, lane));
      // Lanes of hi start 8 columns on: all masked off when 8 or fewer are left.
      const __m256i m_hi = _mm256_cmpgt_epi32(_mm256_sub_epi32(left, _mm256_set1_epi32(8)), lane);
      const float* at = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(row) +
                                                       static_cast<uintptr_t>(2 * x + 8) * 4);
      hi = _mm256_maskload_ps(at, m_hi);
    }
    // Per 128-bit lane: lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6; then 64-bit pairs 0 2 1 3.
    const __m256 e = _mm256_shuffle_ps(lo, hi, 0x88), o = _mm256_shuffle_ps(lo, hi, 0xDD);
    _mm256_storeu_ps(even + x, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
    _mm256_storeu_ps(odd + x, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xD8)));
  }
}

// NB consecutive blocks of 8 outputs from p: tap (ki, kj) reads column phase
// cp = (kj - P) & 1 of filter row ki at [p + coff], coff = (kj - P - cp) / 2;
// column sums by coff (-1, 0, +1), the outer two masked at the row ends.
template <int K, int NB, bool kClamp>
inline void s2_blocks(const float* const (*rows_at)[2], const __m256* wv, __m256 vb,
                      const Clamp& cl, const __m256* masks, int64_t mb, int64_t period, int64_t p,
                      float* out, int64_t count = 16) {
  constexpr int P = K / 2;
  __m256 acc[NB][3];
  for (int nb = 0; nb < NB; ++nb) {
    acc[nb][0] = acc[nb][2] = _mm256_setzero_ps();
    acc[nb][1] = vb;
  }
#pragma GCC unroll 8
  for (int ki = 0; ki < K; ++ki) {
#pragma GCC unroll 8
    for (int kj = 0; kj < K; ++kj) {
      const int d = kj - P, cp = d & 1, coff = (d - cp) / 2;
      const float* r = rows_at[ki][cp] + p + coff;
#pragma GCC unroll 2
      for (int nb = 0; nb < NB; ++nb) {
        acc[nb][coff + 1] =
            _mm256_fmadd_ps(wv[ki * K + kj], _mm256_loadu_ps(r + 8 * nb), acc[nb][coff + 1]);
      }
    }
  }
  for (int nb = 0; nb < NB; ++nb) {
    int64_t b = mb + nb;
    if (b >= period) b -= period;
    const __m256* m = masks + 2 * b;
    __m256 s = _mm256_add_ps(acc[nb][1], _mm256_and_ps(acc[nb][0], m[0]));
    if (K > 3) s = _mm256_add_ps(s, _mm256_and_ps(acc[nb][2], m[1]));
    store(out + p + 8 * nb, clamp<kClamp>(s, cl), count - 8 * nb);
  }
}

// `phases`: the slot's 4 phase buffers (phase_floats each), zero where
// split_row never writes (the lead, the tail, an odd phase's missing column).
template <int K, bool kClamp>
void plane_s2(const float* in, int64_t h, int64_t w, int64_t oh, int64_t ow, const float* wt,
              float bias, const Clamp& cl, const __m256* masks, bool silu, float* phases,
              float* out) {
  constexpr int P = K / 2;
  const int64_t len = phase_floats_of(oh, ow);
  float* ph[4];  // row rp * 2 + column cp; local row i is phase row y0 - 1 + i
  for (int i = 0; i < 4; ++i) ph[i] = phases + i * len + kPhaseLead;
  __m256 wv[K * K];
  for (int t = 0; t < K * K; ++t) wv[t] = _mm256_broadcast_ss(wt + t);
  const __m256 vb = _mm256_set1_ps(bias);
  const int64_t n = oh * ow, period = flat_period(ow);
  const int64_t band = band_rows(oh, ow);
  int64_t mb = 0;
  for (int64_t y0 = 0; y0 < oh; y0 += band) {
    const int64_t rows = std::min(band, oh - y0);
    for (int64_t i = 0; i < rows + 2; ++i) {
      for (int rp = 0; rp < 2; ++rp) {
        const int64_t r = 2 * (y0 - 1 + i) + rp;  // input row
        float* even = ph[rp * 2] + i * ow;
        float* odd = ph[rp * 2 + 1] + i * ow;
        if (r >= 0 && r < h) {
          split_row(in + r * w, w, even, odd);
        } else {
          zero_floats(even, ow);
          zero_floats(odd, ow);
        }
      }
    }
    // Filter row ki, column phase cp: phase row y0 - 1 + (1 + roff) of the
    // band, shifted so that output p (a global index) reads it at [p].
    const float* rows_at[K][2];
    for (int ki = 0; ki < K; ++ki) {
      const int rp = (ki - P) & 1, roff = (ki - P - rp) / 2;
      for (int cp = 0; cp < 2; ++cp) rows_at[ki][cp] = ph[rp * 2 + cp] + (1 + roff - y0) * ow;
    }
    const int64_t p0 = y0 * ow, p1 = std::min(n, (y0 + rows) * ow);
    int64_t p = p0;
    for (; p + 16 <= p1; p += 16) {
      s2_blocks<K, 2, kClamp>(rows_at, wv, vb, cl, masks, mb, period, p, out);
      mb += 2;
      while (mb >= period) mb -= period;
    }
    for (; p < p1; p += 8) {
      s2_blocks<K, 1, kClamp>(rows_at, wv, vb, cl, masks, mb, period, p, out, p1 - p);
      if (++mb == period) mb = 0;
    }
    if (silu) silu_inplace(out + p0, p1 - p0);  // still in L1
  }
}

// ---- dispatch

struct Call {
  const DepthwiseGeom* g;
  const float* weight;
  const float* bias;
  Clamp cl;
  bool silu;
  const __m256* masks;  // the column masks (make_flat_masks / make_phase_masks)
};

// One channel plane.
using PlaneFn = void (*)(const Call& c, const float* in, int64_t channel, float* slot, float* out);

template <int K, bool kClamp>
void run_plane(const Call& c, const float* in, int64_t channel, float* slot, float* out) {
  const DepthwiseGeom& g = *c.g;
  const float* wt = c.weight + channel * K * K;
  const float b = c.bias == nullptr ? 0.0f : c.bias[channel];
  if (g.sh == 1) {
    plane_s1<K, kClamp>(in, g.h, g.w, wt, b, c.cl, c.masks, c.silu, slot, out);
  } else {
    plane_s2<K, kClamp>(in, g.h, g.w, g.oh, g.ow, wt, b, c.cl, c.masks, c.silu, slot, out);
  }
}

// Scratch floats of one worker (the window or the 4 phases, zero where the
// planes are not copied), and of the column masks all share.
size_t slot_floats(const DepthwiseGeom& g) {
  return static_cast<size_t>(g.sh == 1 ? window_floats(g) : 4 * phase_floats(g));
}

size_t mask_floats(const DepthwiseGeom& g) {
  return static_cast<size_t>(g.sh == 1 ? flat_period(g.w) * (g.kh - 1) * 8
                                       : flat_period(g.ow) * 2 * 8);
}

}  // namespace

bool depthwise_direct_supported(const DepthwiseGeom& g) {
  const int64_t k = g.kh;
  return (k == 3 || k == 5) && g.kw == k && g.ph == k / 2 && g.pw == k / 2 && g.dh == 1 &&
         g.dw == 1 && (g.sh == 1 || g.sh == 2) && g.sw == g.sh && g.h >= 1 && g.w >= 1 &&
         g.w < (int64_t{1} << 24) && g.h * g.w < (int64_t{1} << 40) &&
         g.oh == (g.h - 1) / g.sh + 1 && g.ow == (g.w - 1) / g.sw + 1;
}

size_t depthwise_direct_scratch_bytes(const DepthwiseGeom& g, size_t threads) {
  const size_t planes = static_cast<size_t>(std::max<int64_t>(g.batch * g.channels, 1));
  return (mask_floats(g) + slot_floats(g) * std::max<size_t>(1, std::min(threads, planes))) *
         sizeof(float);
}

void depthwise_direct_avx2(const DepthwiseGeom& g, const float* in, const float* weight,
                           const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                           void* scratch, size_t scratch_bytes, ThreadPool* pool) {
  const bool clamp_on = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  const PlaneFn fn = g.kh == 3 ? (clamp_on ? &run_plane<3, true> : &run_plane<3, false>)
                               : (clamp_on ? &run_plane<5, true> : &run_plane<5, false>);
  __m256* masks = static_cast<__m256*>(scratch);
  if (g.sh == 1) {
    make_flat_masks(g, masks);
  } else {
    make_phase_masks(g, masks);
  }
  const Call call{
      &g,   weight, bias, {_mm256_set1_ps(epilogue.lo), _mm256_set1_ps(epilogue.hi)}, epilogue.silu,
      masks};
  const int64_t planes = g.batch * g.channels;
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  const size_t per_slot = slot_floats(g);
  // A slot of scratch per thread (fewer when scratch is short); planes
  // claimed in chunks as threads come free, small layers (under ~4096
  // outputs per chunk) in fewer, larger chunks.
  const size_t threads = pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
  const size_t room = scratch_bytes / sizeof(float) - mask_floats(g);
  ScratchSlots slots(std::max<size_t>(1, std::min(threads, room / per_slot)));
  const size_t grain =
      static_cast<size_t>(std::max<int64_t>(1, 4096 / std::max<int64_t>(1, out_plane)));
  float* base = static_cast<float*>(scratch) + mask_floats(g);
  parallel_for(pool, static_cast<size_t>(planes), grain, [&](size_t first, size_t last) {
    bool fresh = false;
    const size_t sl = slots.acquire(&fresh);
    float* slot = base + sl * per_slot;
    // The padding stays zero: every plane is copied over the same places.
    if (fresh) std::memset(slot, 0, per_slot * sizeof(float));
    for (size_t plane = first; plane < last; ++plane) {
      const int64_t pl = static_cast<int64_t>(plane);
      fn(call, in + pl * in_plane, pl % g.channels, slot, out + pl * out_plane);
    }
    slots.release(sl);
  });
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (depthwise_direct_supported is false).

namespace etr {
namespace opt {

bool depthwise_direct_supported(const DepthwiseGeom&) { return false; }

size_t depthwise_direct_scratch_bytes(const DepthwiseGeom&, size_t) { return 0; }

void depthwise_direct_avx2(const DepthwiseGeom&, const float*, const float*, const float*,
                           const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*) {}

}  // namespace opt
}  // namespace etr

#endif
