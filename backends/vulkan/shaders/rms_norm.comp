#version 450
// RMS norm over the last dim (et_vk.rms_norm): one invocation per row,
//   out = x * rsqrt(mean(x^2) + eps) * weight.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Wt { float weight[]; };
layout(push_constant) uniform Params {
  uint rows;
  uint dim;
  float eps;
} p;

void main() {
  const uint r = flat_index();
  if (r >= p.rows) return;
  const uint base = r * p.dim;
  float ss = 0.0;
  for (uint k = 0u; k < p.dim; ++k) ss += x[base + k] * x[base + k];
  const float inv = 1.0 / sqrt(ss / float(p.dim) + p.eps);
  for (uint k = 0u; k < p.dim; ++k) o[base + k] = x[base + k] * inv * weight[k];
}
