// Element-wise static int8 operations of the XNNPACK delegate's native
// nodes, with XNNPACK 2022's arithmetic, so that the results are the bytes
// XNNPACK's nodes give.
//
// Quantization fp32 -> qint8 (per tensor), XNNPACK's f32 -> qs8 conversion:
//   q = clamp(round_even(min(x * (1 / scale), 127 - zp)) + zp, -128, 127)
// with 1 / scale rounded to float; a NaN becomes 127 (x86 min returns its
// second operand when the first is NaN, as XNNPACK's kernels order them).
//
// Addition (qint8 per tensor operands and output of equal shapes):
//   ra = a_scale / y_scale, rb = b_scale / y_scale              (float)
//   shift = 20 - exponent(max(ra, rb))                          (12 .. 30)
//   ma = lrintf(ra * 2^shift), mb = lrintf(rb * 2^shift)        (exact scaling)
//   bias = 2^(shift - 1) - ma * a_zp - mb * b_zp
//   y = clamp((bias + a * ma + b * mb) >> shift, qmin - y_zp, qmax - y_zp) + y_zp
// (int32, arithmetic shift: rounds half up). Checked against Debian's
// libXNNPACK on every pair of int8 codes (native_qs8_elementwise_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {
namespace xnnpack {

struct QAddParams {
  int32_t a_multiplier = 0;
  int32_t b_multiplier = 0;
  int32_t bias = 0;
  uint32_t shift = 0;
  int32_t low = -128;  // the output bounds less the output zero point
  int32_t high = 127;
  int32_t output_zero_point = 0;
};

// The parameters above; false (nothing written) when a scale ratio lies
// outside [2^-10, 2^8), which XNNPACK refuses too, or the bounds are empty.
bool qadd_params(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point,
                 float y_scale, int32_t y_zero_point, int32_t qmin, int32_t qmax, QAddParams* p);

// y[i] = a[i] + b[i] as above, for i < n (AVX2 where the CPU has it).
void qs8_add(const int8_t* a, const int8_t* b, int8_t* y, size_t n, const QAddParams& p);

// y[i] = the quantization above of x[i] (inv_scale = 1 / scale), for i < n
// (AVX2 where the CPU has it, else SSE2 where built, else scalar).
void qs8_quantize(const float* x, int8_t* y, size_t n, float inv_scale, int32_t zero_point);

// Pixels [0, n) of three planes x0, x1, x2 quantized as above and
// interleaved into y (3 bytes a pixel: an NCHW RGB image to NHWC); returns
// the pixels written, a multiple of 16 (0 where AVX2 is not there).
size_t qs8_quantize_interleave3(const float* x0, const float* x1, const float* x2, int8_t* y,
                                size_t n, float inv_scale, int32_t zero_point);

namespace qadd {
// The AVX2 loops: the elements they wrote (a multiple of 32; 0 where not
// compiled).
size_t add_avx2(const int8_t* a, const int8_t* b, int8_t* y, size_t n, const QAddParams& p);
size_t quantize_avx2(const float* x, int8_t* y, size_t n, float inv_scale, int32_t zero_point);
size_t quantize3_avx2(const float* x0, const float* x1, const float* x2, int8_t* y, size_t n,
                      float inv_scale, int32_t zero_point);
}  // namespace qadd

}  // namespace xnnpack
}  // namespace etr
