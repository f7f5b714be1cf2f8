// The delegate's own int8 global average pooling (backends/xnnpack/
// native_nodes.cpp). XNNPACK 2022 adds the output zero point after rounding
// the mean; the official runtime (executorch 1.5.1, XNNPACK 2025) rounds
// after adding it, ties to the even final code. The tie cases below are
// outputs of the official runtime on the global average pooling of
// q_mobilenet_v2's last feature map (2x2 window, input and output scale
// 0.0309319, zero point -5), where 291 of 1280 channels are exact ties and
// XNNPACK 2022 gave every one of them the other code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/native_nodes.h"
#include "extension/threadpool/pthread_pool.h"
#include "runtime/platform/error_capture.h"
#include "test/xnnpack/native_node_util.h"

namespace etr {
namespace testing {
namespace {

Node pool_node(float lo = -std::numeric_limits<float>::infinity(),
               float hi = std::numeric_limits<float>::infinity()) {
  Node n = make_node(NodeKind::GlobalAvgPooling2d, 0, {0}, 1);
  n.output_min = lo;
  n.output_max = hi;
  return n;
}

// Pools x ([1, 2, 2, C] NHWC int8 codes) and returns the output codes.
std::vector<int8_t> pool(const std::vector<int8_t>& x, size_t channels, const Node& n,
                         ThreadPool* tp = nullptr) {
  const float s = 0.030931932851672173f;
  Values v = {qvalue(0, Dtype::QInt8, {1, 2, 2, channels}, s, -5),
              qvalue(1, Dtype::QInt8, {1, 1, 1, channels}, s, -5)};
  EXPECT_TRUE(xnnpack::is_native_node(v, n));
  EXPECT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  std::vector<int8_t> in = x, out(channels, 0);
  uint8_t* bufs[2] = {reinterpret_cast<uint8_t*>(in.data()),
                      reinterpret_cast<uint8_t*>(out.data())};
  xnnpack::NativeState st;
  EXPECT_EQ(xnnpack::run_native_node(v, n, st, bufs, tp, nullptr, 0), Error::Ok);
  return out;
}

TEST(NativePoolTest, TiesGoToTheEvenFinalCodeAsInTheOfficialRuntime) {
  // Channel c's four pixels (codes, zero point -5); the mean of (code - zp)
  // is 13.5, 19.5, 28.5, 2.5, then a non-tie 2.75 and an exact 7.
  const size_t C = 6;
  const int8_t px[C][4] = {{8, 8, 9, 9},     {14, 14, 15, 15}, {23, 23, 24, 24},
                           {-3, -3, -2, -2}, {-4, -3, -2, 0},  {2, 2, 2, 2}};
  std::vector<int8_t> x(4 * C);
  for (size_t p = 0; p < 4; ++p)
    for (size_t c = 0; c < C; ++c) x[p * C + c] = px[c][p];
  // Official runtime: 13.5 -> code 8, 19.5 -> 14, 28.5 -> 24, 2.5 -> -2
  // (XNNPACK 2022: 9, 15, 23, -3).
  const std::vector<int8_t> want = {8, 14, 24, -2, -2, 2};
  EXPECT_EQ(pool(x, C, pool_node()), want);
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(pool(x, C, pool_node(), tp.get()), want);
}

TEST(NativePoolTest, OutputRangeClampsTheCodes) {
  // output_min 0 (a fused ReLU) is code -5 at zero point -5.
  const std::vector<int8_t> x = {-20, -20, -20, -20};
  EXPECT_EQ(pool(x, 1, pool_node(0.0f)), std::vector<int8_t>{-5});
  EXPECT_EQ(pool(x, 1, pool_node()), std::vector<int8_t>{-20});
}

TEST(NativePoolTest, ManyChannelsAndImagesMatchARoundedMeanPerChannel) {
  // 2 images of 3x5 pixels and 150 channels (two blocks of 64 and 22 more),
  // input scale 0.1 zero point 3, output scale 0.07 zero point -2, clamp
  // [-1.5, 2]: code = round_even(clamp(sum(x - 3) * 0.1 / (0.07 * 15) - 2)).
  const size_t N = 2, P = 15, C = 150;
  std::vector<int8_t> x(N * P * C);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>((i * 37 + i / 7) % 256 - 128);
  Values v = {qvalue(0, Dtype::QInt8, {N, 3, 5, C}, 0.1f, 3),
              qvalue(1, Dtype::QInt8, {N, 1, 1, C}, 0.07f, -2)};
  const Node n = pool_node(-1.5f, 2.0f);
  ASSERT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  const long qlo = std::lrint(-1.5 / 0.07 - 2), qhi = std::lrint(2.0 / 0.07 - 2);
  std::vector<int8_t> want(N * C);
  size_t clamped = 0;
  for (size_t b = 0; b < N; ++b) {
    for (size_t c = 0; c < C; ++c) {
      long sum = 0;
      for (size_t p = 0; p < P; ++p) sum += x[(b * P + p) * C + c] - 3;
      const float f = static_cast<float>(sum) * (0.1f / (0.07f * 15.0f)) - 2.0f;
      long q = std::lrint(static_cast<double>(f));
      if (q < qlo || q > qhi) ++clamped;
      q = q < qlo ? qlo : (q > qhi ? qhi : q);
      want[b * C + c] = static_cast<int8_t>(q);
    }
  }
  EXPECT_GT(clamped, 0u);
  EXPECT_LT(clamped, want.size() / 2);
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
    std::vector<int8_t> in = x, out(N * C, 99);
    uint8_t* bufs[2] = {reinterpret_cast<uint8_t*>(in.data()),
                        reinterpret_cast<uint8_t*>(out.data())};
    xnnpack::NativeState st;
    ASSERT_EQ(xnnpack::run_native_node(v, n, st, bufs, pool, nullptr, 0), Error::Ok);
    EXPECT_EQ(out, want);
  }
}

TEST(NativePoolTest, MismatchedShapesAndQuantizationAreRefusedNamingTheNode) {
  const Node n = pool_node();
  char buf[512];
  {
    Values v = {qvalue(0, Dtype::QInt8, {1, 2, 2, 3}, 0.1f, 0),
                qvalue(1, Dtype::QInt8, {1, 1, 1, 4}, 0.1f, 0)};
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_NE(xnnpack::check_native_node(v, n, 7), Error::Ok);
    const std::string msg = capture.message();
    EXPECT_NE(msg.find("delegate 7: node 0 (GlobalAvgPooling2d)"), std::string::npos) << msg;
  }
  {
    Values v = {qvalue(0, Dtype::QInt8, {1, 2, 2, 3}, 0.1f, 0),
                qvalue(1, Dtype::QInt8, {1, 1, 1, 3}, 0.0f, 0)};
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_NE(xnnpack::check_native_node(v, n, 0), Error::Ok);
    EXPECT_NE(std::string(capture.message()).find("scales"), std::string::npos)
        << capture.message();
  }
  {
    Values v = {qvalue(0, Dtype::QInt8, {1, 300, 300, 1}, 0.1f, 0),
                qvalue(1, Dtype::QInt8, {1, 1, 1, 1}, 0.1f, 0)};
    ErrorCapture capture(buf, sizeof(buf));
    EXPECT_NE(xnnpack::check_native_node(v, n, 0), Error::Ok);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
