// A float64 direct convolution and the test data the convolution tests feed
// it, at the scales of real networks: activations |N(0, 1)| on half the
// channels (after a relu) and N(0, 1) on the rest, weights
// N(0, 2 / (k * k * c_in)) (He), bias N(0, 0.1). NCHW input, OIHW square
// k x k weights, one stride and padding for both dims.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace etr {
namespace testing {

struct ConvShape {
  int batch, c_in, h, w, c_out, k, stride, pad;
};

struct ConvData {
  std::vector<float> x, w, b;
};

inline int conv_out_extent(const ConvShape& s, int in) {
  return (in + 2 * s.pad - s.k) / s.stride + 1;
}

inline ConvData make_conv_data(const ConvShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> he(0.0f, std::sqrt(2.0f / (s.k * s.k * s.c_in)));
  std::normal_distribution<float> small(0.0f, 0.1f);
  ConvData d;
  d.x.resize(static_cast<size_t>(s.batch) * s.c_in * s.h * s.w);
  const size_t plane = static_cast<size_t>(s.h) * s.w;
  for (size_t i = 0; i < d.x.size(); ++i) {
    const float v = unit(rng);
    d.x[i] = (i / plane) % 2 == 0 ? std::abs(v) : v;
  }
  d.w.resize(static_cast<size_t>(s.c_out) * s.c_in * s.k * s.k);
  for (float& v : d.w) v = he(rng);
  d.b.resize(static_cast<size_t>(s.c_out));
  for (float& v : d.b) v = small(rng);
  return d;
}

// The convolution in float64, bias included, no activation; NCHW output.
inline std::vector<double> conv_reference_f64(const ConvShape& s, const ConvData& d) {
  const int oh = conv_out_extent(s, s.h), ow = conv_out_extent(s, s.w);
  std::vector<double> out(static_cast<size_t>(s.batch) * s.c_out * oh * ow);
  for (int b = 0; b < s.batch; ++b) {
    for (int co = 0; co < s.c_out; ++co) {
      for (int y = 0; y < oh; ++y) {
        for (int x = 0; x < ow; ++x) {
          double acc = d.b[co];
          for (int ci = 0; ci < s.c_in; ++ci) {
            const float* xp = d.x.data() + (static_cast<size_t>(b) * s.c_in + ci) * s.h * s.w;
            const float* wp = d.w.data() + (static_cast<size_t>(co) * s.c_in + ci) * s.k * s.k;
            for (int ky = 0; ky < s.k; ++ky) {
              const int yy = y * s.stride + ky - s.pad;
              if (yy < 0 || yy >= s.h) continue;
              for (int kx = 0; kx < s.k; ++kx) {
                const int xx = x * s.stride + kx - s.pad;
                if (xx < 0 || xx >= s.w) continue;
                acc += static_cast<double>(xp[yy * s.w + xx]) * wp[ky * s.k + kx];
              }
            }
          }
          out[((static_cast<size_t>(b) * s.c_out + co) * oh + y) * ow + x] = acc;
        }
      }
    }
  }
  return out;
}

}  // namespace testing
}  // namespace etr
