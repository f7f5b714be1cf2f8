#include "backends/xnnpack/native_qadd.h"

#include <cmath>
#include <cstring>

#include "kernels/cpu_math/cpu_features.h"

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

}  // namespace xnnpack
}  // namespace etr
