#version 450
// Layer norm (fp32) over the last `size` elements of each row:
// out = (x - mean) / sqrt(var + eps) * weight + bias (weight, bias optional).
// One invocation per row; the variance is the biased one, as PyTorch's.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weight { float w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float b[]; };
layout(push_constant) uniform Params {
  uint rows;
  uint size;
  uint has_weight;
  uint has_bias;
  float eps;
} p;

void main() {
  const uint row = flat_index();
  if (row >= p.rows) return;
  const uint base = row * p.size;
  float mean = 0.0;
  for (uint j = 0u; j < p.size; ++j) mean += x[base + j];
  mean /= float(p.size);
  float var = 0.0;
  for (uint j = 0u; j < p.size; ++j) {
    const float c = x[base + j] - mean;
    var += c * c;
  }
  var /= float(p.size);
  const float rstd = inversesqrt(var + p.eps);
  for (uint j = 0u; j < p.size; ++j) {
    float v = (x[base + j] - mean) * rstd;
    if (p.has_weight != 0u) v *= w[j];
    if (p.has_bias != 0u) v += b[j];
    o[base + j] = v;
  }
}
