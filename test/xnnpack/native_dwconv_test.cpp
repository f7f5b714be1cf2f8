// The native NHWC depthwise kernel (backends/xnnpack/native_dwconv.h)
// against a plain loop in double, on the shapes its sliding 8-pixel path
// takes (3x3 / 5x5, stride 1 / 2, channels in blocks of 8; rows with 8 or
// more interior pixels, and wide or narrow rows whose border groups read
// zero-padded copies) and around them (odd widths, 12 channels, dilation
// 2, a 3x5 filter), with a clamp, SiLU, 1 and 2 threads.
#include "backends/xnnpack/native_dwconv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "extension/threadpool/pthread_pool.h"
#include "test/xnnpack/dw_reference.h"

namespace etr {
namespace {

using xnnpack::DwConvShape;

std::vector<double> reference(const DwConvShape& s, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& b) {
  std::vector<double> y;
  for_each_dw_output(
      s, [&](size_t c) { return static_cast<double>(b[c]); },
      [&](double& acc, size_t xi, size_t wi) { acc += static_cast<double>(x[xi]) * w[wi]; },
      [&](double acc, size_t) {
        acc = std::min<double>(std::max<double>(acc, s.output_min), s.output_max);
        if (s.silu) acc = acc / (1.0 + std::exp(-acc));
        y.push_back(acc);
      });
  return y;
}

TEST(NativeDwConvTest, SlidingRowsMatchDoubleReference) {
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  // {h, w, channels, kh, kw, stride, dilation}
  const int cases[][7] = {{12, 30, 16, 3, 3, 1, 1},
                          {9, 41, 24, 5, 5, 1, 1},
                          {20, 37, 8, 3, 3, 2, 1},
                          {15, 64, 16, 5, 5, 2, 1},
                          {7, 19, 12, 3, 3, 1, 1},
                          {10, 33, 16, 3, 3, 1, 2},
                          {8, 29, 16, 3, 5, 1, 1},
                          {4, 8, 32, 3, 3, 1, 1},
                          {14, 14, 40, 5, 5, 1, 1},
                          // Rows of 48 or more outputs, and of at most 8 at stride 1: every
                          // group of 8 pixels from the first, the border ones from zero-padded
                          // copies (a last group of 2 and 3 pixels, 5x5 at stride 2, 7x7).
                          {6, 50, 16, 3, 3, 1, 1},
                          {9, 53, 16, 5, 5, 1, 1},
                          {11, 101, 8, 5, 5, 2, 1},
                          {7, 7, 24, 5, 5, 1, 1}};
  double worst = 0.0;
  uint32_t seed = 7;
  for (const auto& c : cases) {
    DwConvShape s;
    s.batch = seed % 2 + 1;
    s.in_h = c[0];
    s.in_w = c[1];
    s.channels = c[2];
    s.kernel_h = c[3];
    s.kernel_w = c[4];
    s.stride_h = s.stride_w = c[5];
    s.dilation_h = s.dilation_w = c[6];
    s.pad_top = c[6] * (c[3] / 2);
    s.pad_left = c[6] * (c[4] / 2);
    s.out_h = (s.in_h + 2 * s.pad_top - c[6] * (c[3] - 1) - 1) / c[5] + 1;
    s.out_w = (s.in_w + 2 * s.pad_left - c[6] * (c[4] - 1) - 1) / c[5] + 1;
    if (seed % 3 == 0) {
      s.output_min = -1.0f;
      s.output_max = 1.5f;
    }
    s.silu = seed % 3 == 1;
    std::mt19937 rng(seed++);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> x(s.batch * s.in_h * s.in_w * s.channels),
        w(s.kernel_h * s.kernel_w * s.channels), b(s.channels);
    for (float& v : x) v = dist(rng);
    for (float& v : w) v = dist(rng);
    for (float& v : b) v = dist(rng);
    const std::vector<double> want = reference(s, x, w, b);
    for (ThreadPool* pool :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
      std::vector<float> y(want.size(), std::nanf(""));
      xnnpack::depthwise_conv_nhwc(s, x.data(), w.data(), b.data(), y.data(), pool);
      const std::string what =
          "case " + std::to_string(seed - 1) + (pool ? " 2 threads" : " 1 thread");
      size_t bad = 0;
      const double tol = 5e-7 * s.kernel_h * s.kernel_w;
      for (size_t i = 0; i < y.size(); ++i) {
        const double err = std::abs(y[i] - want[i]) / std::max(1.0, std::abs(want[i]));
        worst = std::max(worst, err);
        if (!(err <= tol) && ++bad <= 3)
          ADD_FAILURE() << what << ": element " << i << " is " << y[i] << ", want " << want[i];
      }
      EXPECT_EQ(bad, 0u) << what;
    }
  }
  std::printf("native depthwise: max relative error against double %.3g\n", worst);
}

}  // namespace
}  // namespace etr
