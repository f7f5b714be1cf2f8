#version 450
// Embedding lookup in a 4-bit group-wise quantized table (et_vk.embedding_q4gsw):
//   out[i, d] = (q[idx[i], d] - 8) * scales[idx[i], d / group]
// q: unsigned 4-bit values packed two per byte along d, row_bytes bytes per
// row; even d in the low nibble when low_first (is_linear_weight), else in
// the high one. An index outside the table gives a zero row.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { uint w[]; };
layout(std430, set = 0, binding = 2) readonly buffer S { float scales[]; };
layout(std430, set = 0, binding = 3) readonly buffer Indices { int idx[]; };
layout(push_constant) uniform Params {
  uint numel;  // indices * dim
  uint dim;
  uint rows;
  uint row_bytes;
  uint group;
  uint scale_stride;
  uint low_first;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const int r = idx[i / p.dim];
  if (r < 0 || uint(r) >= p.rows) {
    o[i] = 0.0;
    return;
  }
  const uint d = i % p.dim;
  const uint byte_index = uint(r) * p.row_bytes + d / 2u;
  const uint b = (w[byte_index >> 2u] >> ((byte_index & 3u) * 8u)) & 0xFFu;
  const bool low = ((d & 1u) == 0u) == (p.low_first != 0u);
  const uint q = low ? (b & 0xFu) : (b >> 4u);
  o[i] = float(int(q) - 8) * scales[uint(r) * p.scale_stride + d / p.group];
}
