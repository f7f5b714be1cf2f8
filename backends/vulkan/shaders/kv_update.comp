#version 450
// Writes S new rows into a KV cache [1, ctx, kv_heads, D] at position
// start_pos (sdpa_with_kv_cache's cache update): cache[start_pos + s] = src[s].
// start_pos is read from pos[pos_index] (an int32 tensor the graph computes,
// e.g. the input_pos input) unless pos_index is ~0u (then static_pos). Rows
// that would land outside the cache are dropped.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) buffer Cache { float cache[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { float src[]; };
layout(std430, set = 0, binding = 2) readonly buffer Pos { int pos[]; };
layout(push_constant) uniform Params {
  uint numel;     // S * row
  uint row;       // kv_heads * D
  uint ctx;       // cache rows
  uint pos_index;
  int static_pos;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const int start = p.pos_index == 0xFFFFFFFFu ? p.static_pos : pos[p.pos_index];
  const int t = start + int(i / p.row);
  if (t < 0 || uint(t) >= p.ctx) return;
  cache[uint(t) * p.row + i % p.row] = src[i];
}
