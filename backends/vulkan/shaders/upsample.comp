#version 450
// 2-D upsampling (fp32) of planes H x W to OH x OW. Nearest: source index
// floor(dst * ratio). Bilinear: source coordinate (dst + 0.5) * ratio - 0.5
// clamped at 0 (align_corners: dst * ratio), interpolated between the two
// neighbours in each direction. ratio is in/out, or 1/scale when the
// program gave a scale factor (PyTorch's rule).
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { float o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint numel;  // planes * OH * OW
  uint H;
  uint W;
  uint OH;
  uint OW;
  uint bilinear;
  uint align_corners;
  float ratio_h;
  float ratio_w;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const uint ow = i % p.OW;
  const uint oh = (i / p.OW) % p.OH;
  const uint base = (i / (p.OW * p.OH)) * p.H * p.W;
  if (p.bilinear == 0u) {
    const uint ih = min(uint(floor(float(oh) * p.ratio_h)), p.H - 1u);
    const uint iw = min(uint(floor(float(ow) * p.ratio_w)), p.W - 1u);
    o[i] = x[base + ih * p.W + iw];
    return;
  }
  float sh, sw;
  if (p.align_corners != 0u) {
    sh = float(oh) * p.ratio_h;
    sw = float(ow) * p.ratio_w;
  } else {
    sh = max((float(oh) + 0.5) * p.ratio_h - 0.5, 0.0);
    sw = max((float(ow) + 0.5) * p.ratio_w - 0.5, 0.0);
  }
  const uint h0 = min(uint(sh), p.H - 1u);
  const uint w0 = min(uint(sw), p.W - 1u);
  const uint h1 = min(h0 + 1u, p.H - 1u);
  const uint w1 = min(w0 + 1u, p.W - 1u);
  const float lh = sh - float(h0);
  const float lw = sw - float(w0);
  const float top = mix(x[base + h0 * p.W + w0], x[base + h0 * p.W + w1], lw);
  const float bottom = mix(x[base + h1 * p.W + w0], x[base + h1 * p.W + w1], lw);
  o[i] = mix(top, bottom, lh);
}
