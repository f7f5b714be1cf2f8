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
  uint op;      // 0 add, 1 sub, 2 mul, 3 div, 4 maximum, 5 minimum, 6 pow, 7-12 compare
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
    case 6u: r = pow(x, y); break;
    // Comparisons: bool results are 0.0 or 1.0 (float32 on the device).
    case 7u: r = x == y ? 1.0 : 0.0; break;   // eq.Tensor
    case 8u: r = x != y ? 1.0 : 0.0; break;   // ne.Tensor
    case 9u: r = x < y ? 1.0 : 0.0; break;    // lt.Tensor
    case 10u: r = x <= y ? 1.0 : 0.0; break;  // le.Tensor
    case 11u: r = x > y ? 1.0 : 0.0; break;   // gt.Tensor
    default: r = x >= y ? 1.0 : 0.0; break;   // ge.Tensor
  }
  o[i] = STORE(r);
}
