#version 450
// Inference batch norm (fp32) over dim 1 of [N, C, inner...]:
// out = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c]
// (weight and bias optional).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Mean { float mean[]; };
layout(std430, set = 0, binding = 3) readonly buffer Var { float var[]; };
layout(std430, set = 0, binding = 4) readonly buffer Weight { float w[]; };
layout(std430, set = 0, binding = 5) readonly buffer Bias { float b[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint C;
  uint inner;
  uint has_weight;
  uint has_bias;
  float eps;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const uint c = (i / p.inner) % p.C;
  float v = (x[i] - mean[c]) * inversesqrt(var[c] + p.eps);
  if (p.has_weight != 0u) v *= w[c];
  if (p.has_bias != 0u) v += b[c];
  o[i] = v;
}
