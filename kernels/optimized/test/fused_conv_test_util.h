// Helpers shared by the fused convolution / batch norm kernels' tests
// (bn_relu_conv_test, cat_bn_relu_test, conv_avg_pool_test, conv_band_test,
// conv_strided_test): random batch norm parameters and the error measure
// their float64 references are checked with.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace etr {
namespace testing {

struct BatchNorm {
  std::vector<float> gamma, beta, mean, var;
};

// c channels of batch norm parameters: gamma in [0.5, 1.5), var in
// [0.5, 2), beta and mean normal with standard deviation `spread`; drawn
// channel by channel in that order (gamma, beta, mean, var).
inline BatchNorm make_bn(int c, std::mt19937& rng, float spread) {
  std::uniform_real_distribution<float> pos(0.5f, 1.5f), var_dist(0.5f, 2.0f);
  std::normal_distribution<float> small(0.0f, spread);
  BatchNorm bn;
  for (int i = 0; i < c; ++i) {
    bn.gamma.push_back(pos(rng));
    bn.beta.push_back(small(rng));
    bn.mean.push_back(small(rng));
    bn.var.push_back(var_dist(rng));
  }
  return bn;
}

// max |got - want| / max |want| (the plain max error when want is all 0).
inline double scaled_error(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    err = std::max(err, std::abs(static_cast<double>(got[i]) - want[i]));
  }
  return scale == 0.0 ? err : err / scale;
}

}  // namespace testing
}  // namespace etr
