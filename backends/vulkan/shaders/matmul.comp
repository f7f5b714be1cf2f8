#version 450
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
// out[b, m, n] = alpha * sum_k A[b, m, k] * B[b, k, n] + beta * bias[m, n]
// (fp32). Every operand is addressed through element strides, so a
// transposed weight (linear's [N, K]) or a broadcast bias needs no copy.
// One invocation per output element, 8x8 per workgroup; z is the batch.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { FLOAT_T a[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { FLOAT_T b[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { FLOAT_T c[]; };
layout(push_constant) uniform Params {
  uint M;
  uint N;
  uint K;
  uint has_bias;
  uint a_batch;
  uint a_m;
  uint a_k;
  uint b_batch;
  uint b_k;
  uint b_n;
  uint c_m;
  uint c_n;
  float alpha;
  float beta;
} p;

void main() {
  const uint n = gl_GlobalInvocationID.x;
  const uint m = gl_GlobalInvocationID.y;
  const uint batch = gl_GlobalInvocationID.z;
  if (n >= p.N || m >= p.M) return;
  uint ai = batch * p.a_batch + m * p.a_m;
  uint bi = batch * p.b_batch + n * p.b_n;
  float acc = 0.0;
  for (uint k = 0u; k < p.K; ++k) {
    acc += LOAD(a[ai]) * LOAD(b[bi]);
    ai += p.a_k;
    bi += p.b_k;
  }
  float r = p.alpha * acc;
  if (p.has_bias != 0u) r += p.beta * LOAD(c[m * p.c_m + n * p.c_n]);
  o[(batch * p.M + m) * p.N + n] = STORE(r);
}
