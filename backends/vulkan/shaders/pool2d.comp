#version 450
// max / average 2-D pooling (fp32, NCHW viewed as planes of H x W); one
// invocation per output element. Padding never wins a max; an average
// divides by the window size (count_include_pad: clipped to the padded
// input), by the valid elements otherwise, or by divisor when it is not 0.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { FLOAT_T x[]; };
layout(push_constant) uniform Params {
  uint numel;  // planes * OH * OW
  uint H;
  uint W;
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
  uint is_avg;
  uint count_include_pad;
  int divisor;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const uint ow = i % p.OW;
  const uint oh = (i / p.OW) % p.OH;
  const uint plane = i / (p.OW * p.OH);
  const int ih0 = int(oh * p.stride_h) - p.pad_h;
  const int iw0 = int(ow * p.stride_w) - p.pad_w;
  float acc = p.is_avg != 0u ? 0.0 : -1.0 / 0.0;
  uint valid = 0u;
  for (uint kh = 0u; kh < p.KH; ++kh) {
    const int ih = ih0 + int(kh * p.dil_h);
    if (ih < 0 || ih >= int(p.H)) continue;
    for (uint kw = 0u; kw < p.KW; ++kw) {
      const int iw = iw0 + int(kw * p.dil_w);
      if (iw < 0 || iw >= int(p.W)) continue;
      const float v = LOAD(x[plane * p.H * p.W + uint(ih) * p.W + uint(iw)]);
      acc = p.is_avg != 0u ? acc + v : max(acc, v);
      ++valid;
    }
  }
  if (p.is_avg != 0u) {
    float count;
    if (p.divisor != 0) {
      count = float(p.divisor);
    } else if (p.count_include_pad != 0u) {
      // The window clipped to the padded input (PyTorch's rule).
      const int h_end = min(ih0 + int(p.KH), int(p.H) + p.pad_h);
      const int w_end = min(iw0 + int(p.KW), int(p.W) + p.pad_w);
      count = float((h_end - ih0) * (w_end - iw0));
    } else {
      count = float(max(valid, 1u));
    }
    acc /= count;
  }
  o[i] = STORE(acc);
}
