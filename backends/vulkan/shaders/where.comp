#version 450
// out = cond != 0 ? a : b elementwise with broadcasting (aten.where.self;
// bool tensors are float32 0.0 or 1.0 on the device). Strides of a broadcast
// dim are 0; dims are the output's, innermost last.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer Cond { float cond[]; };
layout(std430, set = 0, binding = 2) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 3) readonly buffer B { float b[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint ndim;
  uint dims[6];
  uint c_strides[6];
  uint a_strides[6];
  uint b_strides[6];
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  uint rest = i;
  uint ci = 0u;
  uint ai = 0u;
  uint bi = 0u;
  for (int d = int(p.ndim) - 1; d >= 0; --d) {
    const uint c = rest % p.dims[d];
    rest /= p.dims[d];
    ci += c * p.c_strides[d];
    ai += c * p.a_strides[d];
    bi += c * p.b_strides[d];
  }
  o[i] = cond[ci] != 0.0 ? a[ai] : b[bi];
}
