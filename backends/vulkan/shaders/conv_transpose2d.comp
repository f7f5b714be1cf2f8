#version 450
// Transposed 2-D convolution (fp32, NCHW, weight [C_in, C_out / groups, KH,
// KW]) with stride, padding, dilation and groups; one invocation per output
// element, gathering the input positions that scatter onto it.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weight { float w[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
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
  float out_min;
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
  const uint ocg = oc % cout_g;
  float acc = p.has_bias != 0u ? bias[oc] : 0.0;
  for (uint kh = 0u; kh < p.KH; ++kh) {
    const int th = int(oh) + p.pad_h - int(kh * p.dil_h);
    if (th < 0 || th % int(p.stride_h) != 0) continue;
    const int ih = th / int(p.stride_h);
    if (ih >= int(p.H)) continue;
    for (uint kw = 0u; kw < p.KW; ++kw) {
      const int tw = int(ow) + p.pad_w - int(kw * p.dil_w);
      if (tw < 0 || tw % int(p.stride_w) != 0) continue;
      const int iw = tw / int(p.stride_w);
      if (iw >= int(p.W)) continue;
      for (uint icg = 0u; icg < cin_g; ++icg) {
        const uint ic = g * cin_g + icg;
        acc += x[((n * p.C_in + ic) * p.H + uint(ih)) * p.W + uint(iw)] *
               w[((ic * cout_g + ocg) * p.KH + kh) * p.KW + kw];
      }
    }
  }
  o[i] = min(max(acc, p.out_min), p.out_max);
}
