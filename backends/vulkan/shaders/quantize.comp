#version 450
// Per-tensor int8 quantization (quantized_decomposed.quantize_per_tensor,
// mode 0: float -> int8, q = clamp(round_half_even(x * inv_scale) + zp,
// qmin, qmax)) and dequantization (dequantize_per_tensor, mode 1: int8 ->
// float, x = (q - zp) * scale). int8 tensors are packed four to a 32-bit
// word, so a quantizing invocation writes one whole word.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) buffer Out { uint o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint mode;
  float scale;      // mode 1
  float inv_scale;  // mode 0
  int zp;
  int qmin;
  int qmax;
} p;

int int8_at(uint i) { return bitfieldExtract(int(x[i >> 2u]), int((i & 3u) * 8u), 8); }

void main() {
  const uint i = flat_index();
  if (p.mode == 1u) {
    if (i >= p.numel) return;
    o[i] = floatBitsToUint(float(int8_at(i) - p.zp) * p.scale);
    return;
  }
  if (i * 4u >= p.numel) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u && i * 4u + k < p.numel; ++k) {
    const float v = uintBitsToFloat(x[i * 4u + k]);
    const int q = clamp(int(roundEven(v * p.inv_scale)) + p.zp, p.qmin, p.qmax);
    word |= (uint(q) & 0xFFu) << (8u * k);
  }
  o[i] = word;
}
