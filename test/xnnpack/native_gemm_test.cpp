// The delegate's fp32 convolution and fully-connected nodes on the optimized
// GEMM (backends/xnnpack/native_nodes.cpp, is_float_gemm_node). Expected
// values come from PyTorch 2.15 (F.pad + F.conv2d, x @ w + b, clamp) on the
// same inputs: element i of an operand is sin(i * a + b) for the (a, b)
// given at each operand.
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

namespace etr {
namespace testing {
namespace {

using xnnpack::Dtype;
using xnnpack::Node;
using xnnpack::NodeKind;
using xnnpack::Value;
using xnnpack::Values;

std::vector<float> sines(size_t n, double a, double b) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(std::sin(static_cast<double>(i) * a + b));
  return v;
}

Value fp32(uint32_t id, std::vector<size_t> dims, const std::vector<float>* data = nullptr) {
  Value v;
  v.id = id;
  v.dtype = Dtype::Fp32;
  v.num_dims = static_cast<uint32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) v.dims[i] = dims[i];
  if (data != nullptr) v.data = reinterpret_cast<const uint8_t*>(data->data());
  return v;
}

// Values 0: x, 1: filter, 2: bias (if any), last: y.
Node gemm_node(NodeKind kind, bool bias, float lo, float hi) {
  Node n;
  n.kind = kind;
  n.index = 3;
  n.inputs[0] = 0;
  n.inputs[1] = 1;
  n.num_inputs = 2;
  if (bias) {
    n.inputs[2] = 2;
    n.num_inputs = 3;
  }
  n.outputs[0] = bias ? 3 : 2;
  n.num_outputs = 1;
  n.output_min = lo;
  n.output_max = hi;
  return n;
}

void set_conv(Node* n, std::vector<uint32_t> pads_trbl, uint32_t kh, uint32_t kw, uint32_t sh,
              uint32_t sw, uint32_t dh, uint32_t dw, uint32_t cin, uint32_t cout) {
  const uint32_t p[] = {pads_trbl[0], pads_trbl[1], pads_trbl[2], pads_trbl[3], kh,   kw, sh,
                        sw,           dh,           dw,           cin,          cout, 1};
  for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); ++i) n->params[i] = p[i];
}

// Prepares and runs node n on input x; returns y (numel `out_numel`).
// `with_scratch` false takes the path without the GEMM's scratch.
std::vector<float> run(const Values& v, const Node& n, std::vector<float> x, size_t out_numel,
                       ThreadPool* pool, bool with_scratch = true) {
  EXPECT_TRUE(xnnpack::is_float_gemm_node(v, n));
  EXPECT_TRUE(xnnpack::is_native_node(v, n));
  EXPECT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  xnnpack::NativeState st;
  EXPECT_EQ(xnnpack::prepare_native_node(v, n, 0, &st), Error::Ok);
  std::vector<float> y(out_numel, std::numeric_limits<float>::quiet_NaN());
  std::vector<uint8_t*> bufs(v.size());
  for (size_t i = 0; i < v.size(); ++i) bufs[i] = const_cast<uint8_t*>(v[i].data);
  bufs[0] = reinterpret_cast<uint8_t*>(x.data());
  bufs[n.outputs[0]] = reinterpret_cast<uint8_t*>(y.data());
  const size_t scratch_bytes = with_scratch ? xnnpack::native_scratch_bytes(v, n) : 0;
  std::vector<uint64_t> scratch((scratch_bytes + 7) / 8 + 8);
  void* s = with_scratch ? static_cast<void*>(scratch.data()) : nullptr;
  xnnpack::run_native_node(v, n, st, bufs.data(), pool, s, scratch_bytes);
  return y;
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  // Summation order differs from PyTorch's: a few float ulps of the value.
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-6f + 2e-6f * std::fabs(want[i])) << "element " << i;
}

struct ConvCase {
  // x [1, 5, 6, 3] NHWC (0.37, 0.1); filter OHWI [4, 3, 2, 3] (0.53, 0.7);
  // bias [4] (1.1, 0.3); stride (2, 1), dilation (1, 2), pads top 1,
  // right 0, bottom 2, left 1; output clamped to [-1.2, 1.6].
  std::vector<float> w = sines(4 * 3 * 2 * 3, 0.53, 0.7);
  std::vector<float> b = sines(4, 1.1, 0.3);
  Values v = {fp32(0, {1, 5, 6, 3}), fp32(1, {4, 3, 2, 3}, &w), fp32(2, {4}, &b),
              fp32(3, {1, 3, 5, 4})};
  Node n = gemm_node(NodeKind::Conv2d, true, -1.2f, 1.6f);
  ConvCase() { set_conv(&n, {1, 0, 2, 1}, 3, 2, 2, 1, 1, 2, 3, 4); }
  std::vector<float> x() const { return sines(1 * 5 * 6 * 3, 0.37, 0.1); }
  const std::vector<float> want = {
      0.28262901f,    0.9761337f,   0.6298719f,    -0.4955875f, 0.7874887f,    0.36613923f,
      1.3369114f,     -1.2f,        -0.090949714f, 1.301316f,   0.35739788f,   -0.27943575f,
      -0.5401448f,    1.6f,         -0.3543601f,   0.55029023f, -0.061186045f, 1.4701676f,
      -0.0078294873f, 0.27732426f,  1.0069987f,    0.4495936f,  0.95159972f,   -0.60823643f,
      1.6f,           -1.2f,        1.6f,          -1.2f,       1.2063136f,    -0.25153428f,
      1.6f,           -1.2f,        -1.1213815f,   1.6f,        -0.47947633f,  0.44332975f,
      -1.2f,          1.6f,         -1.2f,         1.6f,        0.56513655f,   0.82055843f,
      0.65645176f,    -0.39281952f, 0.71871889f,   0.62897235f, 0.88350058f,   -0.65232021f,
      1.1058931f,     0.10447323f,  1.5383688f,    -1.2f,       0.59300482f,   0.55845445f,
      1.1493154f,     -1.1099069f,  -0.25029275f,  1.4866893f,  0.14845312f,   -0.049689949f};
};

TEST(NativeGemmTest, ConvolutionWithPaddingStrideAndDilationMatchesPyTorch) {
  ConvCase c;
  if (!xnnpack::is_float_gemm_node(c.v, c.n)) GTEST_SKIP() << "built without optimized kernels";
  expect_near_all(run(c.v, c.n, c.x(), 60, nullptr), c.want);
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  expect_near_all(run(c.v, c.n, c.x(), 60, tp.get()), c.want);
  // Without scratch the node still computes the same values.
  expect_near_all(run(c.v, c.n, c.x(), 60, nullptr, false), c.want);
}

TEST(NativeGemmTest, PaddedThreeByThreeConvolutionOverTwoImagesMatchesPyTorch) {
  // x [2, 4, 5, 2] (0.19, 0.5); filter [3, 3, 3, 2] (0.43, 0.2); bias
  // (0.9, 0.1); stride 1, no dilation, padding 1 on every side: interior
  // windows copy whole rows, border ones pixel by pixel.
  std::vector<float> w = sines(3 * 3 * 3 * 2, 0.43, 0.2);
  std::vector<float> b = sines(3, 0.9, 0.1);
  Values v = {fp32(0, {2, 4, 5, 2}), fp32(1, {3, 3, 3, 2}, &w), fp32(2, {3}, &b),
              fp32(3, {2, 4, 5, 3})};
  Node n = gemm_node(NodeKind::Conv2d, true, -std::numeric_limits<float>::infinity(),
                     std::numeric_limits<float>::infinity());
  set_conv(&n, {1, 1, 1, 1}, 3, 3, 1, 1, 1, 1, 2, 3);
  if (!xnnpack::is_float_gemm_node(v, n)) GTEST_SKIP() << "built without optimized kernels";
  const std::vector<float> want = {
      -1.6899003f,  1.3260399f,  2.8462586f,    -3.7006941f,   -0.55792427f, 4.4285069f,
      -4.0923901f,  -2.9483912f, 4.276444f,     -3.8859787f,   -4.7981548f,  3.6492665f,
      -0.36552161f, -4.5389757f, 0.18776494f,   -0.69063574f,  -3.6157458f,  0.7228862f,
      3.2554071f,   -4.2421293f, -3.3656402f,   5.3338432f,    -1.8914027f,  -4.9093566f,
      6.6655383f,   0.8492251f,  -5.6176419f,   4.1640649f,    3.8941195f,   -2.4235451f,
      5.5185924f,   3.3422716f,  -3.9036021f,   4.9565082f,    7.5569944f,   -2.3827946f,
      2.7577324f,   8.2195663f,  -0.033303499f, 0.17975184f,   7.8295012f,   2.4559486f,
      -2.3788733f,  4.4360394f,  4.2426634f,    -4.1017127f,   0.91780901f,  5.1652112f,
      -5.9152403f,  -1.6929181f, 6.3848763f,    -6.1060309f,   -3.1925566f,  6.2345448f,
      -5.4114275f,  -4.1166573f, 5.3297353f,    -2.0951447f,   -4.0697508f,  2.024123f,
      -4.2060752f,  -3.1108971f, 4.3531637f,    -2.5846891f,   -6.0085793f,  2.0726421f,
      -1.195255f,   -5.6432257f, 0.76631451f,   0.37895077f,   -4.3526964f,  -0.51433438f,
      1.5789214f,   -1.7415917f, -1.1203573f,   5.1823893f,    0.80559349f,  -4.1444168f,
      6.9038067f,   4.7520928f,  -4.968123f,    5.8643117f,    6.7977734f,   -3.4632978f,
      4.0023942f,   7.9936647f,  -1.3293512f,   -0.070382744f, 6.2946062f,   2.3569407f,
      0.47802734f,  5.2019167f,  1.5599768f,    -3.5135307f,   5.5078955f,   5.6211352f,
      -5.4648342f,  3.050844f,   7.0135336f,    -6.6222215f,   0.27857971f,  7.5403152f,
      -3.8604028f,  -2.566385f,  4.1313515f,    -4.4001727f,   -1.2569647f,  4.9689751f,
      -3.0290909f,  -4.1804132f, 2.9328961f,    -0.80209941f,  -3.334501f,   0.89832461f,
      1.5535713f,   -1.8927989f, -1.1294022f,   1.9423349f,    0.79078156f,  -0.90773183f};
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  expect_near_all(run(v, n, sines(80, 0.19, 0.5), 120, tp.get()), want);
  expect_near_all(run(v, n, sines(80, 0.19, 0.5), 120, nullptr, false), want);
}

TEST(NativeGemmTest, FullyConnectedWithTransposedWeightsMatchesPyTorch) {
  // x [3, 5] (0.29, 0.2); weights [5 (inputs), 4 (outputs)] (0.41, 0.9)
  // with XNN_FLAG_TRANSPOSE_WEIGHTS; bias (0.7, 0); clamp [-1, 1.2].
  std::vector<float> w = sines(20, 0.41, 0.9);
  std::vector<float> b = sines(4, 0.7, 0.0);
  Values v = {fp32(0, {3, 5}), fp32(1, {5, 4}, &w), fp32(2, {4}, &b), fp32(3, {3, 4})};
  Node n = gemm_node(NodeKind::FullyConnected, true, -1.0f, 1.2f);
  n.flags = 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS
  if (!xnnpack::is_float_gemm_node(v, n)) GTEST_SKIP() << "built without optimized kernels";
  const std::vector<float> want = {0.32704842f,  1.158875f,   1.2f,       1.2f,
                                   0.66803825f,  1.2f,        1.2f,       1.1764808f,
                                   -0.16604757f, 0.28638989f, 0.4951548f, 0.32171768f};
  expect_near_all(run(v, n, sines(15, 0.29, 0.2), 12, nullptr), want);
  expect_near_all(run(v, n, sines(15, 0.29, 0.2), 12, nullptr, false), want);
}

TEST(NativeGemmTest, PointwiseConvolutionWithoutBiasMatchesPyTorch) {
  // x [1, 2, 3, 8] (0.23, 0.4); filter [6, 1, 1, 8] (0.31, 1.3); no bias or clamp.
  std::vector<float> w = sines(48, 0.31, 1.3);
  Values v = {fp32(0, {1, 2, 3, 8}), fp32(1, {6, 1, 1, 8}, &w), fp32(2, {1, 2, 3, 6})};
  Node n = gemm_node(NodeKind::Conv2d, false, -std::numeric_limits<float>::infinity(),
                     std::numeric_limits<float>::infinity());
  set_conv(&n, {0, 0, 0, 0}, 1, 1, 1, 1, 1, 1, 8, 6);
  if (!xnnpack::is_float_gemm_node(v, n)) GTEST_SKIP() << "built without optimized kernels";
  const std::vector<float> want = {
      2.9026203f,   -4.9395394f,  4.892118f,    -2.7803674f,  -0.50461662f,  3.5766668f,
      2.0823164f,   -0.88278013f, -0.68926352f, 1.9704583f,   -2.4201777f,   1.8486533f,
      -4.0102625f,  5.4091139f,   -4.5254798f,  1.7322259f,   1.7919762f,    -4.5600166f,
      0.050853461f, -1.994478f,   3.0964916f,   -2.8918772f,  1.4669758f,    0.57694614f,
      3.9832122f,   -4.3481965f,  2.8783696f,   -0.19395611f, -2.5723014f,   4.2531238f,
      -2.1696348f,  4.307404f,    -4.6275764f,  2.9950478f,   -0.098697305f, -2.8393006f};
  expect_near_all(run(v, n, sines(48, 0.23, 0.4), 36, nullptr), want);
}

TEST(NativeGemmTest, NodesOutsideTheGemmPathStayWithXnnpack) {
  ConvCase c;
  if (!xnnpack::is_float_gemm_node(c.v, c.n)) GTEST_SKIP() << "built without optimized kernels";
  // The load option native_gemm=false.
  EXPECT_FALSE(xnnpack::is_native_node(c.v, c.n, false));
  Node same = c.n;
  same.flags = 4;  // XNN_FLAG_TENSORFLOW_SAME_PADDING
  EXPECT_FALSE(xnnpack::is_float_gemm_node(c.v, same));
  Node grouped = c.n;
  grouped.params[12] = 2;
  EXPECT_FALSE(xnnpack::is_float_gemm_node(c.v, grouped));
  Values weights_at_run_time = c.v;
  weights_at_run_time[1].data = nullptr;
  EXPECT_FALSE(xnnpack::is_float_gemm_node(weights_at_run_time, c.n));
  Values quantized = c.v;
  quantized[1].dtype = Dtype::QCInt8;
  EXPECT_FALSE(xnnpack::is_float_gemm_node(quantized, c.n));
}

TEST(NativeGemmTest, ShapesThatDisagreeWithTheParametersAreRefusedNamingTheNode) {
  ConvCase c;
  if (!xnnpack::is_float_gemm_node(c.v, c.n)) GTEST_SKIP() << "built without optimized kernels";
  Values wrong = c.v;
  wrong[3].dims[2] = 6;  // the window arithmetic gives 5 columns
  char buf[512];
  ErrorCapture capture(buf, sizeof(buf));
  EXPECT_NE(xnnpack::check_native_node(wrong, c.n, 2), Error::Ok);
  const std::string msg = capture.message();
  EXPECT_NE(msg.find("delegate 2: node 3 (Conv2d)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace testing
}  // namespace etr
