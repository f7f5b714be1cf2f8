#version 450
// Group norm (fp32) of a contiguous [N, C, HxW] tensor: the channels of each
// sample split into `groups` runs of C / groups channels; each run (one
// contiguous block of cpg * HxW elements) is normalized with its own mean
// and biased variance, then scaled by the channel's weight and shifted by
// its bias (both optional). One invocation per (sample, group).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weight { float w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float b[]; };
layout(push_constant) uniform Params {
  uint rows;  // N * groups
  uint groups;
  uint cpg;   // channels per group
  uint hw;    // elements per channel
  uint has_weight;
  uint has_bias;
  float eps;
} p;

void main() {
  const uint row = flat_index();
  if (row >= p.rows) return;
  const uint size = p.cpg * p.hw;
  const uint base = row * size;
  const uint first_channel = (row % p.groups) * p.cpg;
  float mean = 0.0;
  for (uint j = 0u; j < size; ++j) mean += x[base + j];
  mean /= float(size);
  float var = 0.0;
  for (uint j = 0u; j < size; ++j) {
    const float c = x[base + j] - mean;
    var += c * c;
  }
  var /= float(size);
  const float rstd = inversesqrt(var + p.eps);
  for (uint j = 0u; j < size; ++j) {
    const uint ch = first_channel + j / p.hw;
    float v = (x[base + j] - mean) * rstd;
    if (p.has_weight != 0u) v *= w[ch];
    if (p.has_bias != 0u) v += b[ch];
    o[base + j] = v;
  }
}
