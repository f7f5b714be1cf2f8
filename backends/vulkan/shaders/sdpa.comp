#version 450
// Causal attention of S queries over a KV cache (sdpa_with_kv_cache after its
// cache update): query s (position start_pos + s) of head h attends to cache
// rows 0 .. start_pos + s of KV head h / (heads / kv_heads):
//   out[s, h, d] = sum_t softmax_t(scale * q[s, h] . k[t, kvh]) * v[t, kvh, d]
// One invocation per output element. start_pos as in kv_update.comp; rows
// outside the cache are never read.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 2) readonly buffer K { float kc[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { float vc[]; };
layout(std430, set = 0, binding = 4) readonly buffer Pos { int pos[]; };
layout(push_constant) uniform Params {
  uint S;
  uint heads;
  uint kv_heads;
  uint D;
  uint ctx;
  uint pos_index;
  int static_pos;
  float scale;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.S * p.heads * p.D) return;
  const uint d = i % p.D;
  const uint h = (i / p.D) % p.heads;
  const uint s = i / (p.D * p.heads);
  const uint kvh = h / (p.heads / p.kv_heads);
  const int start = p.pos_index == 0xFFFFFFFFu ? p.static_pos : pos[p.pos_index];
  const int last = start + int(s);  // the last row this query sees
  const uint n = last < 0 ? 0u : min(uint(last) + 1u, p.ctx);
  const uint qoff = (s * p.heads + h) * p.D;
  float mx = -3.402823466e38;
  for (uint t = 0u; t < n; ++t) {
    const uint koff = (t * p.kv_heads + kvh) * p.D;
    float dot_qk = 0.0;
    for (uint e = 0u; e < p.D; ++e) dot_qk += q[qoff + e] * kc[koff + e];
    mx = max(mx, dot_qk * p.scale);
  }
  float sum = 0.0;
  float acc = 0.0;
  for (uint t = 0u; t < n; ++t) {
    const uint koff = (t * p.kv_heads + kvh) * p.D;
    float dot_qk = 0.0;
    for (uint e = 0u; e < p.D; ++e) dot_qk += q[qoff + e] * kc[koff + e];
    const float weight = exp(dot_qk * p.scale - mx);
    sum += weight;
    acc += weight * vc[koff + d];
  }
  o[i] = n == 0u ? 0.0 : acc / sum;
}
