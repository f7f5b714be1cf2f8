#version 450
// Rotary embedding of one tensor [.., S, heads, D] (et_vk.apply_rotary_emb):
// element pairs (2f, 2f+1) of each head are rotated by the angle of token s,
// frequency f:
//   out[2f]   = x[2f] * cos[s, f] - x[2f+1] * sin[s, f]
//   out[2f+1] = x[2f] * sin[s, f] + x[2f+1] * cos[s, f]
// One invocation per pair.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Cos { float fcos[]; };
layout(std430, set = 0, binding = 3) readonly buffer Sin { float fsin[]; };
layout(push_constant) uniform Params {
  uint pairs;           // numel / 2
  uint pairs_per_token; // heads * D / 2
  uint half_dim;        // D / 2
  uint tokens;          // S (the batch repeats the angles)
} p;

void main() {
  const uint j = flat_index();
  if (j >= p.pairs) return;
  const uint s = (j / p.pairs_per_token) % p.tokens;
  const uint f = j % p.half_dim;
  const float c = fcos[s * p.half_dim + f];
  const float sn = fsin[s * p.half_dim + f];
  const float re = x[2u * j];
  const float im = x[2u * j + 1u];
  o[2u * j] = re * c - im * sn;
  o[2u * j + 1u] = re * sn + im * c;
}
