#version 450
// softmax / log_softmax (fp32) along one dim of a tensor viewed as
// [outer, size, inner]: one invocation per (outer, inner) row.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint outer;
  uint size;
  uint inner;
  uint log_softmax;
} p;

void main() {
  const uint row = flat_index();
  if (row >= p.outer * p.inner) return;
  const uint base = (row / p.inner) * p.size * p.inner + row % p.inner;
  float mx = x[base];
  for (uint j = 1u; j < p.size; ++j) mx = max(mx, x[base + j * p.inner]);
  float sum = 0.0;
  for (uint j = 0u; j < p.size; ++j) sum += exp(x[base + j * p.inner] - mx);
  if (p.log_softmax != 0u) {
    const float l = log(sum);
    for (uint j = 0u; j < p.size; ++j) o[base + j * p.inner] = x[base + j * p.inner] - mx - l;
  } else {
    const float inv = 1.0 / sum;
    for (uint j = 0u; j < p.size; ++j) o[base + j * p.inner] = exp(x[base + j * p.inner] - mx) * inv;
  }
}
