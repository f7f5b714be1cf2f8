// Element loops of the quantize / dequantize kernels over int8 and uint8
// values with Float arithmetic: the one formula of quant_util.h's
// quantize_value and of the dequantize ops, run eight or sixteen elements at a
// time where the CPU has AVX2 (quant_vec_avx2.cpp, chosen at run time), a
// plain loop otherwise. Every path rounds exactly as the scalar formulas do
// (products and sums rounded one by one, round half to even), so results are
// the same bits on every CPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {
namespace qvec {

// Elements per chunk when a quantize / dequantize kernel splits its work
// over the thread pool.
constexpr size_t kQuantGrain = 16384;

// q[i] = clamp(round(x[i] * inv) + zp, lo, hi) when round_first, else
// clamp(round(x[i] * inv + zp), lo, hi), then to Q (NaN -> 0); Q is int8_t
// or uint8_t and [lo, hi] lies within Q's range.
template <typename Q>
void quantize(const float* x, Q* q, size_t n, float inv, float zp, float lo, float hi,
              bool round_first);

// y[i] = (float(q[i]) - zp) * scale; Q is int8_t or uint8_t.
template <typename Q>
void dequantize(const Q* q, float* y, size_t n, float zp, float scale);

// torch.amin / torch.amax of x[0..n) (n >= 1): when an element is NaN, both
// are the first NaN.
void min_max(const float* x, size_t n, float* lo, float* hi);

// The AVX2 bodies (quant_vec_avx2.cpp), for the dispatch in quant_vec.cpp.
namespace avx2 {
template <typename Q>
void quantize(const float* x, Q* q, size_t n, float inv, float zp, float lo, float hi,
              bool round_first);
template <typename Q>
void dequantize(const Q* q, float* y, size_t n, float zp, float scale);
void min_max(const float* x, size_t n, float* lo, float* hi);
}  // namespace avx2

}  // namespace qvec
}  // namespace etr
