#version 450
// 2-D convolution (fp32, NCHW, weight [C_out, C_in / groups, KH, KW]) like
// conv2d.comp, but each invocation computes four consecutive output channels
// of one output pixel, so each input element read serves four products. The
// four must be in one group (C_out / groups a multiple of 4); the planner
// uses this shader for ungrouped convolutions with C_out a multiple of 4.
// p.numel counts invocations: N * C_out / 4 * OH * OW.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { FLOAT_T x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weight { FLOAT_T w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { FLOAT_T bias[]; };
layout(push_constant) uniform Params {
  uint numel;  // N * C_out / 4 * OH * OW
  uint C_in;
  uint H;
  uint W;
  uint C_out;
  uint OH;
  uint OW;
  uint KH;
  uint KW;
  uint stride_h;
  uint stride_w;
  int pad_h;
  int pad_w;
  uint dil_h;
  uint dil_w;
  uint groups;
  uint has_bias;
  float out_min;  // the output is clamped to [out_min, out_max]
  float out_max;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const uint quads = p.C_out / 4u;
  const uint ow = i % p.OW;
  const uint oh = (i / p.OW) % p.OH;
  const uint oc = ((i / (p.OW * p.OH)) % quads) * 4u;
  const uint n = i / (p.OW * p.OH * quads);
  const uint cin_g = p.C_in / p.groups;
  const uint g = oc / (p.C_out / p.groups);
  const uint khw = p.KH * p.KW;
  const uint ws = cin_g * khw;  // weight elements per output channel
  vec4 acc = vec4(0.0);
  if (p.has_bias != 0u) acc = vec4(LOAD(bias[oc]), LOAD(bias[oc + 1u]), LOAD(bias[oc + 2u]), LOAD(bias[oc + 3u]));
  const int ih0 = int(oh * p.stride_h) - p.pad_h;
  const int iw0 = int(ow * p.stride_w) - p.pad_w;
  for (uint ic = 0u; ic < cin_g; ++ic) {
    const uint in_plane = (n * p.C_in + g * cin_g + ic) * p.H * p.W;
    const uint w_base = (oc * cin_g + ic) * khw;
    for (uint kh = 0u; kh < p.KH; ++kh) {
      const int ih = ih0 + int(kh * p.dil_h);
      if (ih < 0 || ih >= int(p.H)) continue;
      for (uint kw = 0u; kw < p.KW; ++kw) {
        const int iw = iw0 + int(kw * p.dil_w);
        if (iw < 0 || iw >= int(p.W)) continue;
        const float xv = LOAD(x[in_plane + uint(ih) * p.W + uint(iw)]);
        const uint k = w_base + kh * p.KW + kw;
        acc += xv * vec4(LOAD(w[k]), LOAD(w[k + ws]), LOAD(w[k + 2u * ws]), LOAD(w[k + 3u * ws]));
      }
    }
  }
  acc = min(max(acc, vec4(p.out_min)), vec4(p.out_max));
  const uint plane = p.OH * p.OW;
  const uint base = ((n * p.C_out + oc) * p.OH + oh) * p.OW + ow;
  o[base] = STORE(acc.x);
  o[base + plane] = STORE(acc.y);
  o[base + 2u * plane] = STORE(acc.z);
  o[base + 3u * plane] = STORE(acc.w);
}
