// The direct 3x3 stride-2 convolution of conv_direct.h (AVX2 + FMA).
//
// Per output row, the 3 input rows of every input channel are copied into
// zero-padded row buffers (so no load needs a bounds check or a mask). Per 8
// output pixels, the ci * 9 input vectors (input column 2x - 1 + kj of each
// lane) come from a pair of loads split by one shuffle into even and odd
// columns, in the shuffle's lane order 0 1 4 5 2 3 6 7; a row's vectors stay
// in L1 while each block of 8 output channels sums its ci * 9 taps over
// them, 4 channels by 16 pixels at a time (8 accumulators), each tap's
// weight read as a vector of 8 copies made once per call (no broadcast
// shuffle per FMA). One
// permute per output vector restores the pixel order before the epilogue.
#include "kernels/cpu_math/conv_direct.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu_math/vec_math_avx2_inl.h"

namespace etr {
namespace opt {
namespace {

constexpr int64_t kMargin = 8;  // zero floats before column 0 of a row buffer

int64_t round8(int64_t v) { return (v + 7) & ~int64_t{7}; }

// Floats per row buffer: the margin, then columns up to 2 * round8(ow) + 1.
int64_t row_floats(const DirectConvGeom& g) {
  return round8(kMargin + std::max(2 * round8(g.ow) + 8, g.w));
}

// Per worker: 3 row buffers per input channel and a row's input vectors.
size_t slot_floats(const DirectConvGeom& g) {
  return static_cast<size_t>(row_floats(g) * 3 * g.c_in + round8(g.ow) * 9 * g.c_in);
}

// Shared: every weight as 8 copies, [c_out / 8][c_in * 9][8 channels][8].
size_t weight_floats(const DirectConvGeom& g) {
  return static_cast<size_t>(g.c_out * g.c_in * 9 * 8);
}

struct Epi {
  __m256 lo, hi;
  bool clamp, silu;
};

// Output channels co0 .. co0 + 4 for NB blocks of 8 pixels from x0 of output
// row y: v holds the blocks' input vectors, wb the channels' weight copies.
template <int kTaps, int NB>
inline void channel_quad(const float* v, const float* wb, const float* bias, int64_t co0,
                         const Epi& e, const DirectConvGeom& g, int64_t plane, int64_t y,
                         int64_t x0, float* out) {
  __m256 acc[NB][4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const __m256 b = bias == nullptr ? _mm256_setzero_ps() : _mm256_broadcast_ss(bias + co0 + j);
    for (int n = 0; n < NB; ++n) acc[n][j] = b;
  }
#pragma GCC unroll 3
  for (int t = 0; t < kTaps; ++t) {
    __m256 x[NB];
    for (int n = 0; n < NB; ++n) x[n] = _mm256_load_ps(v + (n * kTaps + t) * 8);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      const __m256 wj = _mm256_load_ps(wb + (t * 8 + j) * 8);
      for (int n = 0; n < NB; ++n) acc[n][j] = _mm256_fmadd_ps(wj, x[n], acc[n][j]);
    }
  }
  for (int n = 0; n < NB; ++n) {
    const int64_t xs = x0 + 8 * n;
    const int64_t count = std::min<int64_t>(8, g.ow - xs);
    for (int j = 0; j < 4; ++j) {
      __m256 s = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(acc[n][j]), 0xD8));
      // max/min return their second operand when either is NaN: NaN stays.
      if (e.clamp) s = _mm256_min_ps(e.hi, _mm256_max_ps(e.lo, s));
      if (e.silu) s = avx2_inl::silu8(s);
      float* o = out + (co0 + j) * plane + y * g.ow + xs;
      if (count == 8) {
        _mm256_storeu_ps(o, s);
      } else {
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, s);
        for (int64_t l = 0; l < count; ++l) o[l] = lanes[l];
      }
    }
  }
}

// Output row y of batch image `in` / `out` (planes of c_in / c_out).
template <int CI>
void conv_row(const DirectConvGeom& g, const float* in, const float* wide, const float* bias,
              const Epi& e, int64_t y, float* rows, float* out) {
  constexpr int kTaps = CI * 9;
  const int64_t len = row_floats(g);
  const float* src[CI * 3];
  for (int ci = 0; ci < CI; ++ci) {
    for (int ki = 0; ki < 3; ++ki) {
      float* buf = rows + (ci * 3 + ki) * len + kMargin;
      const int64_t r = 2 * y - 1 + ki;
      if (r >= 0 && r < g.h) {
        const float* s = in + (ci * g.h + r) * g.w;
        int64_t i = 0;
        for (; i + 8 <= g.w; i += 8) _mm256_storeu_ps(buf + i, _mm256_loadu_ps(s + i));
        for (; i < g.w; ++i) buf[i] = s[i];
      } else {
        std::memset(buf, 0, static_cast<size_t>(g.w) * sizeof(float));
      }
      src[ci * 3 + ki] = buf;
    }
  }
  // Input vectors of the row, [x block][tap][8], tap t = (ci * 3 + ki) * 3 + kj
  // holding columns 2x - 1 + kj.
  float* vin = rows + 3 * CI * len;
  for (int64_t x0 = 0; x0 < g.ow; x0 += 8) {
    float* v = vin + x0 * kTaps;
    for (int i = 0; i < CI * 3; ++i) {
      const float* q = src[i] + 2 * x0 - 1;
      const __m256 lo = _mm256_loadu_ps(q), hi = _mm256_loadu_ps(q + 8);
      const __m256 lo2 = _mm256_loadu_ps(q + 2), hi2 = _mm256_loadu_ps(q + 10);
      _mm256_store_ps(v + (i * 3 + 0) * 8, _mm256_shuffle_ps(lo, hi, 0x88));
      _mm256_store_ps(v + (i * 3 + 1) * 8, _mm256_shuffle_ps(lo, hi, 0xDD));
      _mm256_store_ps(v + (i * 3 + 2) * 8, _mm256_shuffle_ps(lo2, hi2, 0x88));
    }
  }
  const int64_t plane = g.oh * g.ow;
  const int64_t blocks = (g.ow + 7) / 8;
  for (int64_t cb = 0; cb < g.c_out; cb += 8) {
    for (int half = 0; half < 2; ++half) {
      // Channels cb + 4 * half .. + 4, two blocks of 8 pixels at a time.
      const float* wb = wide + cb * kTaps * 8 + half * 32;
      for (int64_t xb = 0; xb < blocks; xb += 2) {
        const int nb = xb + 1 < blocks ? 2 : 1;
        if (nb == 2) {
          channel_quad<kTaps, 2>(vin + xb * 8 * kTaps, wb, bias, cb + 4 * half, e, g, plane, y,
                                 xb * 8, out);
        } else {
          channel_quad<kTaps, 1>(vin + xb * 8 * kTaps, wb, bias, cb + 4 * half, e, g, plane, y,
                                 xb * 8, out);
        }
      }
    }
  }
}

using RowFn = void (*)(const DirectConvGeom& g, const float* in, const float* wide,
                       const float* bias, const Epi& e, int64_t y, float* rows, float* out);

}  // namespace

bool conv3x3s2_supported(const DirectConvGeom& g) {
  return g.c_in >= 1 && g.c_in <= kDirectConvMaxCin && g.c_out > 0 && g.c_out % 8 == 0 &&
         g.h >= 1 && g.w >= 1 && g.w < (int64_t{1} << 24) && g.oh == (g.h - 1) / 2 + 1 &&
         g.ow == (g.w - 1) / 2 + 1;
}

size_t conv3x3s2_scratch_bytes(const DirectConvGeom& g, size_t threads) {
  const size_t rows = static_cast<size_t>(std::max<int64_t>(g.batch * g.oh, 1));
  const size_t slots = std::max<size_t>(1, std::min(threads, rows));
  // Enough for this kernel or conv3x3s2_avx512.
  return std::max(weight_floats(g) + slot_floats(g) * slots,
                  conv3x3s2_avx512_slot_floats(g) * slots) *
         sizeof(float);
}

void conv3x3s2_avx2(const DirectConvGeom& g, const float* in, const float* weight,
                    const float* bias, const DepthwiseEpilogue& epilogue, float* out, void* scratch,
                    size_t scratch_bytes, ThreadPool* pool) {
  static constexpr RowFn kRows[kDirectConvMaxCin] = {&conv_row<1>, &conv_row<2>, &conv_row<3>,
                                                     &conv_row<4>};
  const RowFn fn = kRows[g.c_in - 1];
  Epi e;
  e.lo = _mm256_set1_ps(epilogue.lo);
  e.hi = _mm256_set1_ps(epilogue.hi);
  e.clamp = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  e.silu = epilogue.silu;
  const int64_t rows = g.batch * g.oh;
  const size_t per_slot = slot_floats(g);
  float* wide = static_cast<float*>(scratch);
  const int64_t taps = g.c_in * 9;
  for (int64_t co = 0; co < g.c_out; ++co) {
    for (int64_t t = 0; t < taps; ++t) {
      // [co / 8][t][co % 8][8]
      float* d = wide + (((co / 8) * taps + t) * 8 + co % 8) * 8;
      _mm256_store_ps(d, _mm256_set1_ps(weight[co * taps + t]));
    }
  }
  int64_t slots = pool == nullptr ? 1 : static_cast<int64_t>(pool->num_threads());
  slots = std::min<int64_t>(slots, rows);
  const size_t room = scratch_bytes / sizeof(float) - weight_floats(g);
  slots = std::max<int64_t>(1, std::min<int64_t>(slots, static_cast<int64_t>(room / per_slot)));
  float* base = wide + weight_floats(g);
  parallel_for(pool, static_cast<size_t>(slots), 1, [&](size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      float* mine = base + s * per_slot;
      // Margins and the columns past w stay zero; rows are copied over the rest.
      std::memset(mine, 0, per_slot * sizeof(float));
      const int64_t first = rows * static_cast<int64_t>(s) / slots;
      const int64_t last = rows * static_cast<int64_t>(s + 1) / slots;
      for (int64_t r = first; r < last; ++r) {
        const int64_t b = r / g.oh, y = r % g.oh;
        fn(g, in + b * g.c_in * g.h * g.w, wide, bias, e, y, mine, out + b * g.c_out * g.oh * g.ow);
      }
    }
  });
}

}  // namespace opt
}  // namespace etr

#else  // no AVX2 in this build: never selected (conv3x3s2_supported is false).

namespace etr {
namespace opt {

bool conv3x3s2_supported(const DirectConvGeom&) { return false; }

size_t conv3x3s2_scratch_bytes(const DirectConvGeom&, size_t) { return 0; }

void conv3x3s2_avx2(const DirectConvGeom&, const float*, const float*, const float*,
                    const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*) {}

}  // namespace opt
}  // namespace etr

#endif
