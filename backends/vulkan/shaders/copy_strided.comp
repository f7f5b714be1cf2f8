#version 450
// out[i] = in[strided index of i]: permute/transpose/expand of 32-bit
// elements. dims are the output's (innermost last); in_strides give, per
// output dim, the input element stride (0 for an expanded dim).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint ndim;
  uint dims[8];
  uint in_strides[8];
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  uint rest = i;
  uint src = 0u;
  for (int d = int(p.ndim) - 1; d >= 0; --d) {
    const uint c = rest % p.dims[d];
    rest /= p.dims[d];
    src += c * p.in_strides[d];
  }
  o[i] = x[src];
}
