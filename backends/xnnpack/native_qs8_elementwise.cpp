#include "backends/xnnpack/native_qs8_elementwise.h"

#include <cmath>
#include <cstring>

#include "kernels/cpu_math/cpu_features.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace etr {
namespace xnnpack {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

bool qadd_params(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point,
                 float y_scale, int32_t y_zero_point, int32_t qmin, int32_t qmax, QAddParams* p) {
  const float ra = a_scale / y_scale, rb = b_scale / y_scale;
  const float lo = 0x1.0p-10f, hi = 0x1.0p+8f;
  if (!(ra >= lo && ra < hi && rb >= lo && rb < hi) || qmin > qmax) return false;
  const float mx = ra > rb ? ra : rb;
  const int32_t exponent = static_cast<int32_t>(bits_of(mx) >> 23) - 127;
  const uint32_t shift = static_cast<uint32_t>(20 - exponent);  // 13 .. 30 here
  // ra * 2^shift by adding to the exponent field (exact for these normal values).
  const int32_t ma = static_cast<int32_t>(std::lrintf(float_of(bits_of(ra) + (shift << 23))));
  const int32_t mb = static_cast<int32_t>(std::lrintf(float_of(bits_of(rb) + (shift << 23))));
  p->a_multiplier = ma;
  p->b_multiplier = mb;
  p->bias = (int32_t{1} << (shift - 1)) - ma * a_zero_point - mb * b_zero_point;
  p->shift = shift;
  p->low = qmin - y_zero_point;
  p->high = qmax - y_zero_point;
  p->output_zero_point = y_zero_point;
  return true;
}

void qs8_add(const int8_t* a, const int8_t* b, int8_t* y, size_t n, const QAddParams& p) {
  size_t i = opt::cpu_features().avx2_fma ? qadd::add_avx2(a, b, y, n, p) : 0;
  for (; i < n; ++i) {
    int32_t v = (p.bias + a[i] * p.a_multiplier + b[i] * p.b_multiplier) >> p.shift;
    v = v < p.low ? p.low : (v > p.high ? p.high : v);
    y[i] = static_cast<int8_t>(v + p.output_zero_point);
  }
}

void qs8_quantize(const float* x, int8_t* y, size_t count, float inv_scale, int32_t zp) {
  const float hi = static_cast<float>(127 - zp);
  size_t i = opt::cpu_features().avx2_fma ? qadd::quantize_avx2(x, y, count, inv_scale, zp) : 0;
#if defined(__SSE2__)
  const __m128 vscale = _mm_set1_ps(inv_scale);
  const __m128 vhi = _mm_set1_ps(hi);
  const __m128i vzp = _mm_set1_epi16(static_cast<int16_t>(zp));
  for (; i + 16 <= count; i += 16) {
    // cvtps2dq rounds half to even and turns values past int32 into
    // INT32_MIN; the saturating packs then give -128 for those, as the
    // final clamp would.
    const __m128i a = _mm_cvtps_epi32(_mm_min_ps(_mm_mul_ps(_mm_loadu_ps(x + i), vscale), vhi));
    const __m128i b = _mm_cvtps_epi32(_mm_min_ps(_mm_mul_ps(_mm_loadu_ps(x + i + 4), vscale), vhi));
    const __m128i c = _mm_cvtps_epi32(_mm_min_ps(_mm_mul_ps(_mm_loadu_ps(x + i + 8), vscale), vhi));
    const __m128i d =
        _mm_cvtps_epi32(_mm_min_ps(_mm_mul_ps(_mm_loadu_ps(x + i + 12), vscale), vhi));
    const __m128i ab = _mm_adds_epi16(_mm_packs_epi32(a, b), vzp);
    const __m128i cd = _mm_adds_epi16(_mm_packs_epi32(c, d), vzp);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm_packs_epi16(ab, cd));
  }
#endif
  const float lo = static_cast<float>(-128 - zp);
  for (; i < count; ++i) {
    float f = x[i] * inv_scale;
    f = f < hi ? f : hi;  // NaN -> hi
    f = f > lo ? f : lo;
    y[i] = static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(f)) + zp);
  }
}

size_t qs8_quantize_interleave3(const float* x0, const float* x1, const float* x2, int8_t* y,
                                size_t n, float inv_scale, int32_t zero_point) {
  return opt::cpu_features().avx2_fma
             ? qadd::quantize3_avx2(x0, x1, x2, y, n, inv_scale, zero_point)
             : 0;
}

}  // namespace xnnpack
}  // namespace etr
