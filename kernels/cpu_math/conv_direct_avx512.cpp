// The direct 3x3 stride-2 convolution of conv_direct.h with AVX-512F
// (conv3x3s2_avx512; the convolution runs it instead of conv3x3s2_avx2
// where cpu_features().avx512f).
//
// As in conv_direct_avx2.cpp, the input vectors of an output row are built
// once: per 16 output pixels and tap, the input columns 2x - 1 + kj of the
// 16 pixels, taken from two loads by one two-source permute (in pixel order,
// so no permute is needed at the store). The loads are masked to the
// columns inside the image (the AVX2 kernel copies every row into a
// zero-padded buffer first). Each
// group of 4 output channels then sums the c_in * 9 taps over up to 4
// blocks of 16 pixels at a time: 16 accumulators, per tap 4 vector loads,
// 4 weights broadcast from the weights as given and 16 FMAs (the AVX2 kernel
// keeps 8 accumulators, and 8-lane weight copies it loads per FMA pair).
// Built with AVX-512F by etr_isa_sources (cmake/helpers.cmake).
#include "kernels/cpu_math/conv_direct.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu_math/vec_math_avx512_inl.h"

namespace etr {
namespace opt {
namespace {

int64_t round16(int64_t v) { return (v + 15) & ~int64_t{15}; }

struct Epi {
  __m512 lo, hi;
  bool clamp, silu;
};

// Output channels co0 .. co0 + 4 for NB blocks of 16 pixels from x0 of
// output row y: v holds the blocks' input vectors ([block][tap][16]), w the
// weights as given ([c_out][kTaps]).
template <int kTaps, int NB>
inline void channel_quad(const float* v, const float* w, const float* bias, int64_t co0,
                         const Epi& e, const DirectConvGeom& g, int64_t plane, int64_t y,
                         int64_t x0, float* out) {
  __m512 acc[NB][4];
  for (int j = 0; j < 4; ++j) {
    const __m512 b = bias == nullptr ? _mm512_setzero_ps() : _mm512_set1_ps(bias[co0 + j]);
    for (int n = 0; n < NB; ++n) acc[n][j] = b;
  }
  const float* wq = w + co0 * kTaps;
#pragma GCC unroll 3
  for (int t = 0; t < kTaps; ++t) {
    __m512 x[NB];
    for (int n = 0; n < NB; ++n) x[n] = _mm512_load_ps(v + (n * kTaps + t) * 16);
    for (int j = 0; j < 4; ++j) {
      const __m512 wj = _mm512_set1_ps(wq[j * kTaps + t]);
      for (int n = 0; n < NB; ++n) acc[n][j] = _mm512_fmadd_ps(wj, x[n], acc[n][j]);
    }
  }
  for (int n = 0; n < NB; ++n) {
    const int64_t xs = x0 + 16 * n;
    const int64_t count = std::min<int64_t>(16, g.ow - xs);
    const __mmask16 m = static_cast<__mmask16>((1u << count) - 1u);
    for (int j = 0; j < 4; ++j) {
      __m512 s = acc[n][j];
      // max/min return their second operand when either is NaN: NaN stays.
      // (The maskz forms: GCC 12 warns about the plain ones' undefined
      // pass-through.)
      if (e.clamp) {
        s = _mm512_maskz_min_ps(0xFFFF, e.hi, _mm512_maskz_max_ps(0xFFFF, e.lo, s));
      }
      if (e.silu) s = avx512_inl::silu16(s);
      float* o = out + (co0 + j) * plane + y * g.ow + xs;
      if (count == 16) {
        _mm512_storeu_ps(o, s);
      } else {
        _mm512_mask_storeu_ps(o, m, s);
      }
    }
  }
}

// Lanes [0, 16) of a load at input column c0 that fall inside [0, w).
inline __mmask16 inside(int64_t c0, int64_t w) {
  const int64_t first = std::max<int64_t>(0, -c0);
  const int64_t last = std::min<int64_t>(16, w - c0);
  if (last <= first) return 0;
  return static_cast<__mmask16>(((1u << (last - first)) - 1u) << first);
}

// Output row y of batch image `in` / `out` (planes of c_in / c_out).
template <int CI>
void conv_row(const DirectConvGeom& g, const float* in, const float* w, const float* bias,
              const Epi& e, int64_t y, float* vin, float* out) {
  constexpr int kTaps = CI * 9;
  // Input vectors of the row, [x block][tap][16], tap t = (ci * 3 + ki) * 3
  // + kj holding columns 2x - 1 + kj: from loads of the input rows masked to
  // the columns inside the image (the masked-off lanes, the zero padding,
  // read nothing), and zeros for the rows above and below it.
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const int64_t blocks = (g.ow + 15) / 16;
  for (int64_t xb = 0; xb < blocks; ++xb) {
    float* v = vin + xb * 16 * kTaps;
    const int64_t c0 = 32 * xb - 1;  // column of the first load's lane 0
    const __mmask16 m0 = inside(c0, g.w), m1 = inside(c0 + 16, g.w);
    const __mmask16 m2 = inside(c0 + 2, g.w), m3 = inside(c0 + 18, g.w);
    for (int ci = 0; ci < CI; ++ci) {
      for (int ki = 0; ki < 3; ++ki) {
        const int i = ci * 3 + ki;
        const int64_t r = 2 * y - 1 + ki;
        if (r < 0 || r >= g.h) {
          for (int kj = 0; kj < 3; ++kj)
            _mm512_store_ps(v + (i * 3 + kj) * 16, _mm512_setzero_ps());
          continue;
        }
        // Column c0 of row r (the pointer may lie before the row: lane 0 of
        // the first block is masked off then).
        const float* q = in + (ci * g.h + r) * g.w + c0;
        const __m512 lo = _mm512_maskz_loadu_ps(m0, q), hi = _mm512_maskz_loadu_ps(m1, q + 16);
        const __m512 lo2 = _mm512_maskz_loadu_ps(m2, q + 2);
        const __m512 hi2 = _mm512_maskz_loadu_ps(m3, q + 18);
        _mm512_store_ps(v + (i * 3 + 0) * 16, _mm512_permutex2var_ps(lo, even, hi));
        _mm512_store_ps(v + (i * 3 + 1) * 16, _mm512_permutex2var_ps(lo, odd, hi));
        _mm512_store_ps(v + (i * 3 + 2) * 16, _mm512_permutex2var_ps(lo2, even, hi2));
      }
    }
  }
  const int64_t plane = g.oh * g.ow;
  for (int64_t co = 0; co < g.c_out; co += 4) {
    int64_t xb = 0;
    for (; xb + 4 <= blocks; xb += 4) {
      channel_quad<kTaps, 4>(vin + xb * 16 * kTaps, w, bias, co, e, g, plane, y, xb * 16, out);
    }
    switch (blocks - xb) {
      case 3:
        channel_quad<kTaps, 3>(vin + xb * 16 * kTaps, w, bias, co, e, g, plane, y, xb * 16, out);
        break;
      case 2:
        channel_quad<kTaps, 2>(vin + xb * 16 * kTaps, w, bias, co, e, g, plane, y, xb * 16, out);
        break;
      case 1:
        channel_quad<kTaps, 1>(vin + xb * 16 * kTaps, w, bias, co, e, g, plane, y, xb * 16, out);
        break;
      default: break;
    }
  }
}

using RowFn = void (*)(const DirectConvGeom& g, const float* in, const float* w, const float* bias,
                       const Epi& e, int64_t y, float* vin, float* out);

}  // namespace

size_t conv3x3s2_avx512_slot_floats(const DirectConvGeom& g) {
  return static_cast<size_t>(round16(g.ow) * 9 * g.c_in);
}

void conv3x3s2_avx512(const DirectConvGeom& g, const float* in, const float* weight,
                      const float* bias, const DepthwiseEpilogue& epilogue, float* out,
                      void* scratch, size_t scratch_bytes, ThreadPool* pool) {
  static constexpr RowFn kRows[kDirectConvMaxCin] = {&conv_row<1>, &conv_row<2>, &conv_row<3>,
                                                     &conv_row<4>};
  const RowFn fn = kRows[g.c_in - 1];
  Epi e;
  e.lo = _mm512_set1_ps(epilogue.lo);
  e.hi = _mm512_set1_ps(epilogue.hi);
  e.clamp = epilogue.lo > -__builtin_inff() || epilogue.hi < __builtin_inff();
  e.silu = epilogue.silu;
  const int64_t rows = g.batch * g.oh;
  const size_t per_slot = conv3x3s2_avx512_slot_floats(g);
  int64_t slots = pool == nullptr ? 1 : static_cast<int64_t>(pool->num_threads());
  slots = std::min<int64_t>(slots, rows);
  const size_t room = scratch_bytes / sizeof(float);
  slots = std::max<int64_t>(1, std::min<int64_t>(slots, static_cast<int64_t>(room / per_slot)));
  float* base = static_cast<float*>(scratch);
  parallel_for(pool, static_cast<size_t>(slots), 1, [&](size_t begin, size_t end) {
    for (size_t s = begin; s < end; ++s) {
      float* mine = base + s * per_slot;
      const int64_t first = rows * static_cast<int64_t>(s) / slots;
      const int64_t last = rows * static_cast<int64_t>(s + 1) / slots;
      for (int64_t r = first; r < last; ++r) {
        const int64_t b = r / g.oh, y = r % g.oh;
        fn(g, in + b * g.c_in * g.h * g.w, weight, bias, e, y, mine,
           out + b * g.c_out * g.oh * g.ow);
      }
    }
  });
}

}  // namespace opt
}  // namespace etr

#else  // no AVX-512F in this build: never called (cpu_features gates it).

namespace etr {
namespace opt {

size_t conv3x3s2_avx512_slot_floats(const DirectConvGeom&) { return 0; }

void conv3x3s2_avx512(const DirectConvGeom&, const float*, const float*, const float*,
                      const DepthwiseEpilogue&, float*, void*, size_t, ThreadPool*) {}

}  // namespace opt
}  // namespace etr

#endif
