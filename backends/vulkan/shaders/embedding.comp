#version 450
// Embedding lookup (fp32 table [rows, dim], int32 indices): output row i is
// table row indices[i]; an index outside the table gives zeros.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer Table { float table[]; };
layout(std430, set = 0, binding = 2) readonly buffer Indices { int idx[]; };
layout(push_constant) uniform Params {
  uint numel;  // indices * dim
  uint dim;
  uint rows;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const int r = idx[i / p.dim];
  o[i] = (r >= 0 && uint(r) < p.rows) ? table[uint(r) * p.dim + i % p.dim] : 0.0;
}
