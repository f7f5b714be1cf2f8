// Dynamically quantized linear layers (the exporter's
// XnnpackDynamicallyQuantizedPartitioner): Convert fp32 -> qdint8 quantizes
// each row of the activations to int8 with its own scale and zero point,
// then FullyConnected qdint8 x qcint8 (per-channel int8 weights) -> fp32.
// Debian's XNNPACK (2022) has neither, so the delegate runs them itself with
// the official XNNPACK numerics:
//   row parameters (src/xnnpack/quantization.h, qd8 asymmetric):
//     rmin = min(0, min x), rmax = max(0, max x)
//     m = rmin == rmax ? 1 : 255 / (rmax - rmin)          (float)
//     zp = (-128 + rmin*m) + (127 + rmax*m) > 0 ? -128 - rmin*m : 127 - rmax*m,
//          clamped to [-128, 127], rounded to nearest even
//     scale = 1 / m
//   q = round_even(clamp(x * m, -128 - zp, 127 - zp)) + zp
//   y[r][o] = fma(float(sum_k (q[r][k] - zp[r]) * w[o][k]) * scale[r], w_scale[o], bias[o]),
//             then max(y, output_min), min(y, output_max)
// (integer accumulation in int32; the inner sum is exact; the clamps use
// XNNPACK's max/min, which turn a NaN result into output_min). A row holding
// +-inf gets m = 0 and scale = inf, so its outputs are +-inf or output_min,
// as in XNNPACK. NaN inputs are skipped by the row min/max and quantized to
// the zero point (XNNPACK's result for them depends on the CPU's kernel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace etr {
class ThreadPool;
namespace xnnpack {

// One row's quantization: x ~= scale * (q - zero_point).
struct Qd8Params {
  float scale;
  int32_t zero_point;
};

// The row parameters for a row whose smallest and largest values are
// `min` and `max`; `*multiplier` receives m (x * m is the quantized value
// before the zero point is added).
Qd8Params qd8_params(float min, float max, float* multiplier);

// Quantizes `rows` rows of `k` floats (row stride k) into `q` and `params`.
void qd8_quantize(const float* x, size_t rows, size_t k, int8_t* q, Qd8Params* params,
                  ThreadPool* pool);

// Bytes of a qdint8 value's buffer holding `numel` int8 values in rows of
// `k`: the values, then one Qd8Params per row (8-byte aligned).
size_t qd8_buffer_bytes(size_t numel, size_t k);
// Where the row parameters start inside such a buffer.
inline size_t qd8_params_offset(size_t numel) { return (numel + 7) & ~size_t{7}; }

// Per-channel int8 weights prepared once at init.
struct DqLinearWeights {
  size_t k = 0;               // input channels
  size_t n = 0;               // output channels
  const int8_t* w = nullptr;  // [n, k] row-major (the constant or `owned`)
  std::vector<int8_t> owned;  // transposed copy when the payload stores [k, n]
  std::vector<int32_t> ksum;  // sum_k w[o][k]
  const float* scales = nullptr;
  const float* bias = nullptr;  // may be null; points into bias_copy
  std::vector<float> bias_copy;
  float output_min = -__builtin_inff();
  float output_max = __builtin_inff();
};

// Largest k the int32 accumulation cannot overflow for.
constexpr size_t kDqMaxInputChannels = 65536;

// y[rows, n] = dequantized (q[rows, k] x w^T) + bias, clamped.
void dq_linear(const int8_t* q, const Qd8Params* params, size_t rows, const DqLinearWeights& w,
               float* y, ThreadPool* pool);

}  // namespace xnnpack
}  // namespace etr
