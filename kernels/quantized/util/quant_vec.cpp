// The plain loops of quant_vec.h and the choice of the AVX2 bodies.
#include "kernels/quantized/util/quant_vec.h"

#include <cmath>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "kernels/quantized/util/quant_util.h"

namespace etr {
namespace qvec {
#if defined(__x86_64__)
namespace {

// Whether this CPU runs quant_vec_avx2.cpp (AVX2; its file is also built
// with FMA and F16C, so those are required too). Asked once. (F16C is CPUID
// leaf 1, ECX bit 29: clang's __builtin_cpu_supports has no "f16c".)
bool use_avx2() {
  static const bool yes = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  }();
  return yes;
}

}  // namespace
#endif

template <typename Q>
void quantize(const float* x, Q* q, size_t n, float inv, float zp, float lo, float hi,
              bool round_first) {
#if defined(__x86_64__)
  if (use_avx2()) return avx2::quantize<Q>(x, q, n, inv, zp, lo, hi, round_first);
#endif
  for (size_t i = 0; i < n; ++i)
    q[i] = quantize_value<Q, float>(x[i], inv, zp, lo, hi, round_first);
}

template <typename Q>
void dequantize(const Q* q, float* y, size_t n, float zp, float scale) {
#if defined(__x86_64__)
  if (use_avx2()) return avx2::dequantize<Q>(q, y, n, zp, scale);
#endif
  for (size_t i = 0; i < n; ++i) y[i] = (static_cast<float>(q[i]) - zp) * scale;
}

void min_max(const float* x, size_t n, float* lo, float* hi) {
#if defined(__x86_64__)
  if (use_avx2()) return avx2::min_max(x, n, lo, hi);
#endif
  float mn = x[0];
  float mx = x[0];
  for (size_t i = 1; i < n && !std::isnan(mn); ++i) {
    const float v = x[i];
    if (std::isnan(v)) {
      mn = mx = v;
    } else {
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
    }
  }
  *lo = mn;
  *hi = mx;
}

template void quantize<int8_t>(const float*, int8_t*, size_t, float, float, float, float, bool);
template void quantize<uint8_t>(const float*, uint8_t*, size_t, float, float, float, float, bool);
template void dequantize<int8_t>(const int8_t*, float*, size_t, float, float);
template void dequantize<uint8_t>(const uint8_t*, float*, size_t, float, float);
}  // namespace qvec
}  // namespace etr
