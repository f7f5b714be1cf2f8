#version 450
// out = op(a, b) elementwise with broadcasting (fp32). Strides of a
// broadcast dim are 0; dims are the output's, innermost last.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { FLOAT_T a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { FLOAT_T b[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint ndim;
  uint op;      // 0 add, 1 sub, 2 mul, 3 div, 4 maximum, 5 minimum, 6 pow
  float alpha;  // add/sub: out = a +- alpha * b
  uint dims[6];
  uint a_strides[6];
  uint b_strides[6];
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  uint rest = i;
  uint ai = 0u;
  uint bi = 0u;
  for (int d = int(p.ndim) - 1; d >= 0; --d) {
    const uint c = rest % p.dims[d];
    rest /= p.dims[d];
    ai += c * p.a_strides[d];
    bi += c * p.b_strides[d];
  }
  const float x = LOAD(a[ai]);
  const float y = LOAD(b[bi]);
  float r;
  switch (p.op) {
    case 0u: r = x + p.alpha * y; break;
    case 1u: r = x - p.alpha * y; break;
    case 2u: r = x * y; break;
    case 3u: r = x / y; break;
    case 4u: r = max(x, y); break;
    case 5u: r = min(x, y); break;
    default: r = pow(x, y); break;
  }
  o[i] = STORE(r);
}
