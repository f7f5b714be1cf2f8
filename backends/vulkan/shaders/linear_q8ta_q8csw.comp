#version 450
// Linear layer on int8 activations with int8 per-channel weights and a float
// output (et_vk.linear_q8ta_q8csw):
//   y[m, n] = in_scale * w_scale[n] * (sum_k x[m, k] * w[n, k] - in_zp * w_sum[n]) + bias[n]
// where w_sum[n] = sum_k w[n, k] (the program's weight_sums). The int8 dot
// product and the zero-point correction are exact integer sums. int8 tensors
// are packed four to a 32-bit word; one invocation writes one output element.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 2) readonly buffer W { uint w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Sums { int w_sum[]; };
layout(std430, set = 0, binding = 4) readonly buffer S { float w_scale[]; };
layout(std430, set = 0, binding = 5) readonly buffer B { float bias[]; };
layout(push_constant) uniform Params {
  uint M;
  uint N;
  uint K;
  float in_scale;
  int in_zp;
  uint has_bias;
} p;

int x_at(uint i) { return bitfieldExtract(int(x[i >> 2u]), int((i & 3u) * 8u), 8); }
int w_at(uint i) { return bitfieldExtract(int(w[i >> 2u]), int((i & 3u) * 8u), 8); }

void main() {
  const uint i = flat_index();
  if (i >= p.M * p.N) return;
  const uint m = i / p.N;
  const uint n = i % p.N;
  // |x * w| <= 2^14 and, with w_sum[n] the row's sum, |in_zp * w_sum[n]| <=
  // 2^14 * K: for K < 2^16 (checked at init) both sums and their difference
  // fit in an int. (A wrong w_sum wraps around: a wrong value, not a fault.)
  int acc = 0;
  for (uint k = 0u; k < p.K; ++k) acc += x_at(m * p.K + k) * w_at(n * p.K + k);
  acc -= p.in_zp * w_sum[n];
  float y = float(acc) * (p.in_scale * w_scale[n]);
  if (p.has_bias != 0u) y += bias[n];
  o[i] = y;
}
