#version 450
// Element type conversion between 32-bit types, on raw words:
// mode 0 int32 -> float32, 1 float32 -> int32 (toward zero), 2 copy.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint mode;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const uint v = x[i];
  if (p.mode == 0u) {
    o[i] = floatBitsToUint(float(int(v)));
  } else if (p.mode == 1u) {
    o[i] = uint(int(uintBitsToFloat(v)));
  } else {
    o[i] = v;
  }
}
