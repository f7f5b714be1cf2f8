#version 450
// Linear layer with 4-bit group-wise symmetric weights (et_vk.linear_q4gsw,
// et_vk.linear_dq8ca_q4gsw):
//   out[m, n] = sum_k x'[m, k] * (q[n, k] - 8) * scales[k / group, n] + bias[n]
// q: unsigned 4-bit values packed two per byte along k (even k in the low
// nibble, odd k in the high one), row_bytes bytes per output row; scales:
// [groups, scale_stride] float. x' is x, or (dyn_act = 1) x quantized per row
// to int8 and dequantized again, with the row's asymmetric parameters
// (torchao's choose_qparams_affine over [1, K], quantize_affine and
// dequantize_affine, int8 range [-128, 127]).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer W { uint w[]; };
layout(std430, set = 0, binding = 3) readonly buffer S { float scales[]; };
layout(std430, set = 0, binding = 4) readonly buffer B { float bias[]; };
layout(push_constant) uniform Params {
  uint M;
  uint N;
  uint K;
  uint row_bytes;
  uint group;
  uint scale_stride;
  uint has_bias;
  uint dyn_act;
} p;

float weight(uint n, uint k) {
  const uint byte_index = n * p.row_bytes + k / 2u;
  const uint b = (w[byte_index >> 2u] >> ((byte_index & 3u) * 8u)) & 0xFFu;
  const uint q = (k & 1u) == 0u ? (b & 0xFu) : (b >> 4u);
  return float(int(q) - 8);
}

void main() {
  const uint i = flat_index();
  if (i >= p.M * p.N) return;
  const uint m = i / p.N;
  const uint n = i % p.N;
  const uint base = m * p.K;
  float scale = 1.0;
  float inv_scale = 1.0;
  float zp = 0.0;
  if (p.dyn_act != 0u) {
    float lo = 0.0;
    float hi = 0.0;
    for (uint k = 0u; k < p.K; ++k) {
      lo = min(lo, x[base + k]);
      hi = max(hi, x[base + k]);
    }
    // The smallest normal float is the least scale (an all-zero row).
    scale = max((hi - lo) / 255.0, 1.17549435e-38);
    inv_scale = 1.0 / scale;
    zp = clamp(-128.0 - roundEven(lo / scale), -128.0, 127.0);
  }
  float acc = 0.0;
  for (uint g0 = 0u; g0 < p.K; g0 += p.group) {
    float part = 0.0;
    for (uint k = g0; k < g0 + p.group; ++k) {
      float v = x[base + k];
      if (p.dyn_act != 0u) v = (clamp(roundEven(v * inv_scale) + zp, -128.0, 127.0) - zp) * scale;
      part += v * weight(n, k);
    }
    acc += part * scales[(g0 / p.group) * p.scale_stride + n];
  }
  if (p.has_bias != 0u) acc += bias[n];
  o[i] = acc;
}
