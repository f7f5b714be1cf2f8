#version 450
// sum / mean / amax (fp32) over the middle dim of a tensor viewed as
// [outer, size, inner]: one invocation per (outer, inner) output element.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { FLOAT_T x[]; };
layout(push_constant) uniform Params {
  uint outer;
  uint size;
  uint inner;
  uint op;  // 0 sum, 1 mean, 2 amax, 3 amin
} p;

void main() {
  const uint row = flat_index();
  if (row >= p.outer * p.inner) return;
  const uint base = (row / p.inner) * p.size * p.inner + row % p.inner;
  float acc = p.op == 2u ? -1.0 / 0.0 : (p.op == 3u ? 1.0 / 0.0 : 0.0);
  for (uint j = 0u; j < p.size; ++j) {
    const float v = LOAD(x[base + j * p.inner]);
    if (p.op == 2u) {
      acc = max(acc, v);
    } else if (p.op == 3u) {
      acc = min(acc, v);
    } else {
      acc += v;
    }
  }
  if (p.op == 1u) acc /= float(p.size);
  o[row] = STORE(acc);
}
