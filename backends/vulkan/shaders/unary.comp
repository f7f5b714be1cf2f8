#version 450
// out = f(in) elementwise (fp32), f chosen by p.op with parameters p0, p1.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { FLOAT_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { FLOAT_T x[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint op;
  float p0;  // clamp/hardtanh: lower bound
  float p1;  // clamp/hardtanh: upper bound
} p;

// erf(v), Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
float erf_approx(float v) {
  const float s = sign(v);
  const float a = abs(v);
  const float t = 1.0 / (1.0 + 0.3275911 * a);
  const float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t -
                          0.284496736) * t + 0.254829592) * t * exp(-a * a);
  return s * y;
}

float sigmoid(float v) { return 1.0 / (1.0 + exp(-v)); }

// tanh without the overflow of (e^2v - 1) / (e^2v + 1) at large |v|.
float safe_tanh(float v) {
  const float e = exp(-2.0 * abs(v));
  return sign(v) * (1.0 - e) / (1.0 + e);
}

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  const float v = LOAD(x[i]);
  float r;
  switch (p.op) {
    case 0u: r = max(v, 0.0); break;                     // relu
    case 1u: r = min(max(v, p.p0), p.p1); break;         // clamp, hardtanh
    case 2u: r = sigmoid(v); break;                      // sigmoid
    case 3u: r = safe_tanh(v); break;                    // tanh
    case 4u: r = v * sigmoid(v); break;                  // silu
    case 5u: r = 0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752)); break;  // gelu
    case 6u: {                                           // gelu, tanh approximation
      const float k = 0.79788456080286536;               // sqrt(2 / pi)
      r = 0.5 * v * (1.0 + safe_tanh(k * (v + 0.044715 * v * v * v)));
      break;
    }
    case 7u: r = v * min(max(v + 3.0, 0.0), 6.0) / 6.0; break;  // hardswish
    case 8u: r = min(max(v + 3.0, 0.0), 6.0) / 6.0; break;      // hardsigmoid
    case 9u: r = abs(v); break;
    case 10u: r = -v; break;
    case 11u: r = exp(v); break;
    case 12u: r = sqrt(v); break;
    case 13u: r = inversesqrt(v); break;
    // Comparisons with a scalar p0 and logical not: bool results are 0.0
    // or 1.0 (bool tensors are float32 on the device).
    case 14u: r = v == p.p0 ? 1.0 : 0.0; break;  // eq.Scalar
    case 15u: r = v != p.p0 ? 1.0 : 0.0; break;  // ne.Scalar
    case 16u: r = v < p.p0 ? 1.0 : 0.0; break;   // lt.Scalar
    case 17u: r = v <= p.p0 ? 1.0 : 0.0; break;  // le.Scalar
    case 18u: r = v > p.p0 ? 1.0 : 0.0; break;   // gt.Scalar
    case 19u: r = v >= p.p0 ? 1.0 : 0.0; break;  // ge.Scalar
    case 20u: r = v == 0.0 ? 1.0 : 0.0; break;   // logical_not
    default: r = v; break;
  }
  o[i] = STORE(r);
}
