#version 450
// 2-D convolution (fp32, NCHW, weight [C_out, C_in / groups, KH, KW]) with
// stride, padding, dilation and groups; one invocation per output element.
// Depthwise and pointwise convolutions are the groups == C_in and 1x1 cases.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { FLOAT_T x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weight { FLOAT_T w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { FLOAT_T bias[]; };
layout(push_constant) uniform Params {
  uint numel;  // N * C_out * OH * OW
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
  const uint ow = i % p.OW;
  const uint oh = (i / p.OW) % p.OH;
  const uint oc = (i / (p.OW * p.OH)) % p.C_out;
  const uint n = i / (p.OW * p.OH * p.C_out);
  const uint cin_g = p.C_in / p.groups;
  const uint cout_g = p.C_out / p.groups;
  const uint g = oc / cout_g;
  float acc = p.has_bias != 0u ? LOAD(bias[oc]) : 0.0;
  const int ih0 = int(oh * p.stride_h) - p.pad_h;
  const int iw0 = int(ow * p.stride_w) - p.pad_w;
  for (uint ic = 0u; ic < cin_g; ++ic) {
    const uint in_plane = (n * p.C_in + g * cin_g + ic) * p.H * p.W;
    const uint w_base = (oc * cin_g + ic) * p.KH * p.KW;
    for (uint kh = 0u; kh < p.KH; ++kh) {
      const int ih = ih0 + int(kh * p.dil_h);
      if (ih < 0 || ih >= int(p.H)) continue;
      for (uint kw = 0u; kw < p.KW; ++kw) {
        const int iw = iw0 + int(kw * p.dil_w);
        if (iw < 0 || iw >= int(p.W)) continue;
        acc += LOAD(x[in_plane + uint(ih) * p.W + uint(iw)]) * LOAD(w[w_base + kh * p.KW + kw]);
      }
    }
  }
  o[i] = STORE(min(max(acc, p.out_min), p.out_max));
}
