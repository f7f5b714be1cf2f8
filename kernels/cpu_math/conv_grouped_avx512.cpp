// The band copy of the direct grouped convolution (conv_grouped.h) with
// AVX-512 masked loads and stores: a padded row of a small image (9 to 58
// floats for RegNet's 7x7 to 56x56 layers) is one or a few 16-lane vectors,
// where the AVX2 copy runs scalar head and tail loops per row. Built with
// AVX-512F by etr_isa_sources (cmake/helpers.cmake); conv_grouped_avx2.cpp
// calls it only where cpu_features().avx512f.
#include "kernels/cpu_math/conv_grouped.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include <algorithm>

namespace etr {
namespace opt {

void conv_grouped_copy_band_avx512(const GroupedConvGeom& g, const float* in, int64_t iy0,
                                   int64_t rows_in, int64_t pitch, float* pad) {
  const int64_t icg = g.c_in / g.groups;
  for (int64_t ci = 0; ci < icg; ++ci) {
    for (int64_t r = 0; r < rows_in; ++r) {
      float* dst = pad + (ci * rows_in + r) * pitch;
      const int64_t iy = iy0 + r;
      const bool inside = iy >= 0 && iy < g.h;
      const float* src = in + (ci * g.h + (inside ? iy : 0)) * g.w;
      for (int64_t j = 0; j < pitch; j += 16) {
        // Lane l is padded column j + l, input column j + l - pw: loaded
        // where that lies in [0, w) (masked-off lanes read nothing and are
        // 0), stored where j + l < pitch.
        const int64_t c0 = j - g.pw;
        const int64_t lo = std::min<int64_t>(16, std::max<int64_t>(0, -c0));
        const int64_t hi = std::max(lo, std::min<int64_t>(16, g.w - c0));
        const uint32_t load_bits = inside ? ((1u << hi) - 1u) & ~((1u << lo) - 1u) : 0u;
        const int64_t n = std::min<int64_t>(16, pitch - j);
        const __m512 v = _mm512_maskz_loadu_ps(static_cast<__mmask16>(load_bits), src + c0);
        _mm512_mask_storeu_ps(dst + j, static_cast<__mmask16>((1u << n) - 1u), v);
      }
    }
  }
}

}  // namespace opt
}  // namespace etr

#else  // built without AVX-512: never selected (cpu_features), kept for linking.

namespace etr {
namespace opt {

void conv_grouped_copy_band_avx512(const GroupedConvGeom&, const float*, int64_t, int64_t, int64_t,
                                   float*) {}

}  // namespace opt
}  // namespace etr

#endif
