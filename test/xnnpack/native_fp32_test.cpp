// The delegate's native fp32 nodes (backends/xnnpack/native_nodes.cpp,
// is_float_compute_node): convolution and fully-connected layers on the
// optimized GEMM, depthwise convolution, sigmoid, softmax, multiply, add, and the SiLU
// fusion. Expected
// values come from PyTorch 2.15 (F.pad + F.conv2d, x @ w + b, clamp) on the
// same inputs: element i of an operand is sin(i * a + b) for the (a, b)
// given at each operand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/xnnpack/fusion.h"
#include "backends/xnnpack/native_nodes.h"
#include "extension/threadpool/pthread_pool.h"
#include "kernels/cpu_math/conv_winograd1d.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/platform/error_capture.h"
#include "test/xnnpack/native_node_util.h"

namespace etr {
namespace testing {
namespace {

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

// Prepares and runs node n on input x; returns y (numel `out_numel`).
// `with_scratch` false takes the path without the GEMM's scratch.
std::vector<float> run(const Values& v, const Node& n, std::vector<float> x, size_t out_numel,
                       ThreadPool* pool, bool with_scratch = true) {
  EXPECT_TRUE(xnnpack::is_float_gemm_node(v, n));
  EXPECT_TRUE(xnnpack::is_native_node(v, n));
  EXPECT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  Arena arena;
  xnnpack::NativeState st;
  EXPECT_EQ(xnnpack::prepare_native_node(v, n, 0, &arena.alloc, &st), Error::Ok);
  std::vector<float> y(out_numel, std::numeric_limits<float>::quiet_NaN());
  std::vector<uint8_t*> bufs(v.size());
  for (size_t i = 0; i < v.size(); ++i) bufs[i] = const_cast<uint8_t*>(v[i].data);
  bufs[0] = reinterpret_cast<uint8_t*>(x.data());
  bufs[n.outputs[0]] = reinterpret_cast<uint8_t*>(y.data());
  const size_t scratch_bytes = with_scratch ? xnnpack::native_scratch_bytes(v, n) : 0;
  std::vector<uint64_t> scratch((scratch_bytes + 7) / 8 + 8);
  void* s = with_scratch ? static_cast<void*>(scratch.data()) : nullptr;
  EXPECT_EQ(xnnpack::run_native_node(v, n, st, bufs.data(), pool, s, scratch_bytes), Error::Ok);
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

TEST(NativeFp32Test, ConvolutionWithPaddingStrideAndDilationMatchesPyTorch) {
  ConvCase c;
  ASSERT_TRUE(xnnpack::is_float_gemm_node(c.v, c.n)) << "the native fp32 path is always built";
  expect_near_all(run(c.v, c.n, c.x(), 60, nullptr), c.want);
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  expect_near_all(run(c.v, c.n, c.x(), 60, tp.get()), c.want);
  // Without scratch the node still computes the same values.
  expect_near_all(run(c.v, c.n, c.x(), 60, nullptr, false), c.want);
}

TEST(NativeFp32Test, PaddedThreeByThreeConvolutionOverTwoImagesMatchesPyTorch) {
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
  ASSERT_TRUE(xnnpack::is_float_gemm_node(v, n)) << "the native fp32 path is always built";
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

TEST(NativeFp32Test, FullyConnectedWithTransposedWeightsMatchesPyTorch) {
  // x [3, 5] (0.29, 0.2); weights [5 (inputs), 4 (outputs)] (0.41, 0.9)
  // with XNN_FLAG_TRANSPOSE_WEIGHTS; bias (0.7, 0); clamp [-1, 1.2].
  std::vector<float> w = sines(20, 0.41, 0.9);
  std::vector<float> b = sines(4, 0.7, 0.0);
  Values v = {fp32(0, {3, 5}), fp32(1, {5, 4}, &w), fp32(2, {4}, &b), fp32(3, {3, 4})};
  Node n = gemm_node(NodeKind::FullyConnected, true, -1.0f, 1.2f);
  n.flags = 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS
  ASSERT_TRUE(xnnpack::is_float_gemm_node(v, n)) << "the native fp32 path is always built";
  const std::vector<float> want = {0.32704842f,  1.158875f,   1.2f,       1.2f,
                                   0.66803825f,  1.2f,        1.2f,       1.1764808f,
                                   -0.16604757f, 0.28638989f, 0.4951548f, 0.32171768f};
  expect_near_all(run(v, n, sines(15, 0.29, 0.2), 12, nullptr), want);
  expect_near_all(run(v, n, sines(15, 0.29, 0.2), 12, nullptr, false), want);
}

TEST(NativeFp32Test, PointwiseConvolutionWithoutBiasMatchesPyTorch) {
  // x [1, 2, 3, 8] (0.23, 0.4); filter [6, 1, 1, 8] (0.31, 1.3); no bias or clamp.
  std::vector<float> w = sines(48, 0.31, 1.3);
  Values v = {fp32(0, {1, 2, 3, 8}), fp32(1, {6, 1, 1, 8}, &w), fp32(2, {1, 2, 3, 6})};
  Node n = gemm_node(NodeKind::Conv2d, false, -std::numeric_limits<float>::infinity(),
                     std::numeric_limits<float>::infinity());
  set_conv(&n, {0, 0, 0, 0}, 1, 1, 1, 1, 1, 1, 8, 6);
  ASSERT_TRUE(xnnpack::is_float_gemm_node(v, n)) << "the native fp32 path is always built";
  const std::vector<float> want = {
      2.9026203f,   -4.9395394f,  4.892118f,    -2.7803674f,  -0.50461662f,  3.5766668f,
      2.0823164f,   -0.88278013f, -0.68926352f, 1.9704583f,   -2.4201777f,   1.8486533f,
      -4.0102625f,  5.4091139f,   -4.5254798f,  1.7322259f,   1.7919762f,    -4.5600166f,
      0.050853461f, -1.994478f,   3.0964916f,   -2.8918772f,  1.4669758f,    0.57694614f,
      3.9832122f,   -4.3481965f,  2.8783696f,   -0.19395611f, -2.5723014f,   4.2531238f,
      -2.1696348f,  4.307404f,    -4.6275764f,  2.9950478f,   -0.098697305f, -2.8393006f};
  expect_near_all(run(v, n, sines(48, 0.23, 0.4), 36, nullptr), want);
}

// (index, value) pairs of an expected output.
struct Sample {
  size_t index;
  float value;
};

void expect_samples(const std::vector<float>& got, const std::vector<Sample>& want) {
  for (const Sample& s : want) {
    ASSERT_LT(s.index, got.size());
    EXPECT_NEAR(got[s.index], s.value, 1e-6f + 2e-6f * std::fabs(s.value)) << "element " << s.index;
  }
}

Node dw_node(bool bias, float lo, float hi, std::vector<uint32_t> pads_trbl, uint32_t k,
             uint32_t stride, uint32_t channels) {
  Node n = gemm_node(NodeKind::DepthwiseConv2d, bias, lo, hi);
  set_conv(&n, pads_trbl, k, k, stride, stride, 1, 1, 1, 1);
  xnnpack::ConvParams p = n.conv();
  p.groups = channels;  // one output channel per input channel
  n.set_conv(p);
  return n;
}

// Runs a prepared native node whose buffers are given per value id.
void run_node(const Values& v, const Node& n, std::vector<std::vector<float>*> buffers,
              ThreadPool* pool) {
  ASSERT_TRUE(xnnpack::is_float_compute_node(v, n));
  ASSERT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  Arena arena;
  xnnpack::NativeState st;
  ASSERT_EQ(xnnpack::prepare_native_node(v, n, 0, &arena.alloc, &st), Error::Ok);
  std::vector<uint8_t*> bufs(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    bufs[i] = buffers[i] != nullptr ? reinterpret_cast<uint8_t*>(buffers[i]->data())
                                    : const_cast<uint8_t*>(v[i].data);
  }
  ASSERT_EQ(xnnpack::run_native_node(v, n, st, bufs.data(), pool, nullptr, 0), Error::Ok);
}

TEST(NativeFp32Test, DepthwiseConvolutionMatchesPyTorch) {
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  {
    // x [1, 5, 9, 11] (0.29, 0.3), filter [1, 3, 3, 11] (0.37, 0.8), bias
    // (0.5, 0.2); 3x3, stride 1, padding 1; clamp [-1.5, 2]. Interior
    // pixels run four at a time, 11 channels = 8 + a masked 3.
    std::vector<float> w = sines(99, 0.37, 0.8), b = sines(11, 0.5, 0.2);
    Values v = {fp32(0, {1, 5, 9, 11}), fp32(1, {1, 3, 3, 11}, &w), fp32(2, {11}, &b),
                fp32(3, {1, 5, 9, 11})};
    const Node n = dw_node(true, -1.5f, 2.0f, {1, 1, 1, 1}, 3, 1, 11);
    ASSERT_TRUE(xnnpack::is_float_compute_node(v, n)) << "the native fp32 path is always built";
    std::vector<float> x = sines(495, 0.29, 0.3), y(495, std::nanf(""));
    run_node(v, n, {&x, nullptr, nullptr, &y}, tp.get());
    expect_samples(
        y, {{0, 0.88233036f},    {7, 0.2001223f},     {14, 0.36979532f},   {21, -1.5f},
            {28, 0.66525578f},   {35, 0.3760277f},    {42, -1.5f},         {49, 1.0308843f},
            {56, 0.17057821f},   {63, -1.5f},         {70, 1.2936074f},    {77, -0.16607891f},
            {84, -1.2472385f},   {91, 1.0231551f},    {98, -0.39611381f},  {105, 0.781394f},
            {112, 2.0f},         {119, -0.62784731f}, {126, 0.90531015f},  {133, 2.0f},
            {140, -1.0079539f},  {147, 0.71469414f},  {154, 1.3634194f},   {161, -1.0781368f},
            {168, 0.26269072f},  {175, -1.5f},        {182, -0.77533257f}, {189, -0.29658812f},
            {196, -1.3971999f},  {203, -0.26394138f}, {210, -0.85035068f}, {217, -1.2135491f},
            {224, 0.66178989f},  {231, -1.2077314f},  {238, -0.35942972f}, {245, 1.4331445f},
            {252, 0.48385501f},  {259, 0.46740505f},  {266, 1.9492867f},   {273, 0.20961642f},
            {280, 1.0304021f},   {287, 1.8339539f},   {294, -0.62066102f}, {301, 1.3556037f},
            {308, 1.6867764f},   {315, -0.30296847f}, {322, 0.88788736f},  {329, -1.5f},
            {336, -0.33317935f}, {343, 0.25871724f},  {350, -1.5f},        {357, -0.137023f},
            {364, -0.51391691f}, {371, -1.5f},        {378, 0.25627995f},  {385, -0.82686031f},
            {392, -0.54492724f}, {399, 0.74618524f},  {406, -1.3970833f},  {413, 0.15365955f},
            {420, 1.1998837f},   {427, -1.3006606f},  {434, 0.45296276f},  {441, 1.0506976f},
            {448, -1.0672851f},  {455, 0.63489521f},  {462, 0.71045786f},  {469, -0.60170674f},
            {476, 0.62490141f},  {483, -0.7859813f},  {490, 0.2912828f}});
  }
  {
    // x [2, 7, 7, 37] (0.13, 0.6), filter [1, 5, 5, 37] (0.21, 0.4), no
    // bias; 5x5, stride 2, padding 2: every window crosses the border;
    // 37 channels = 32 + a masked 5.
    std::vector<float> w = sines(25 * 37, 0.21, 0.4);
    Values v = {fp32(0, {2, 7, 7, 37}), fp32(1, {1, 5, 5, 37}, &w), fp32(2, {2, 4, 4, 37})};
    const Node n = dw_node(false, -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::infinity(), {2, 2, 2, 2}, 5, 2, 37);
    std::vector<float> x = sines(2 * 7 * 7 * 37, 0.13, 0.6), y(2 * 4 * 4 * 37, std::nanf(""));
    run_node(v, n, {&x, nullptr, &y}, nullptr);
    expect_samples(
        y, {{0, -2.0786934f},    {17, -0.96824026f},  {34, -0.13811706f},  {51, 0.95498264f},
            {68, -0.86877537f},  {85, 0.53329289f},   {102, 2.4848254f},   {119, -0.83868283f},
            {136, -2.0841603f},  {153, -0.94971305f}, {170, -1.1937754f},  {187, 0.95004749f},
            {204, 0.41951191f},  {221, -0.35072282f}, {238, 1.2668792f},   {255, 1.5292259f},
            {272, -1.3181119f},  {289, -0.79580075f}, {306, -1.5240368f},  {323, -1.0864089f},
            {340, 1.3988227f},   {357, 0.36309364f},  {374, 0.25961879f},  {391, 1.0601271f},
            {408, -0.90321702f}, {425, -0.86094534f}, {442, -1.053008f},   {459, -0.31836879f},
            {476, -0.53911763f}, {493, -0.24500367f}, {510, -1.001343f},   {527, 1.9032031f},
            {544, 2.7453322f},   {561, -1.8862327f},  {578, -2.1699705f},  {595, 0.92082304f},
            {612, 0.38971657f},  {629, -2.7426879f},  {646, -2.0293055f},  {663, -1.2095751f},
            {680, 1.6798537f},   {697, -0.22113787f}, {714, -0.1985805f},  {731, 1.5482544f},
            {748, 0.42547852f},  {765, 1.2736027f},   {782, -1.7148341f},  {799, -2.0447757f},
            {816, 1.2865287f},   {833, 0.84158736f},  {850, 0.16419116f},  {867, 0.54789144f},
            {884, 0.63217586f},  {901, 1.0450373f},   {918, 1.1572576f},   {935, -2.2937081f},
            {952, -1.9881557f},  {969, 1.7498679f},   {986, 0.93989176f},  {1003, -0.21837555f},
            {1020, 0.24345061f}, {1037, 0.31641951f}, {1054, 0.23398405f}, {1071, 1.3102007f},
            {1088, -1.4146981f}, {1105, -1.4429159f}, {1122, 0.42201596f}, {1139, -0.57129055f},
            {1156, 1.0722129f},  {1173, 1.8141508f}});
  }
}

TEST(NativeFp32Test, MultiplyBroadcastPerImageAndSigmoidMatchPyTorch) {
  // a [2, 2, 3, 5] (0.41, 0.1) times s [2, 1, 1, 5] (0.7, 0.9); sigmoid(a).
  Values v = {fp32(0, {2, 2, 3, 5}), fp32(1, {2, 1, 1, 5}), fp32(2, {2, 2, 3, 5})};
  Node mul = gemm_node(NodeKind::Multiply, false, -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::infinity());
  ASSERT_TRUE(xnnpack::is_float_compute_node(v, mul)) << "the native fp32 path is always built";
  std::vector<float> a = sines(60, 0.41, 0.1), s = sines(10, 0.7, 0.9), y(60, std::nanf(""));
  run_node(v, mul, {&a, &s, &y}, nullptr);
  const std::vector<float> want_mul = {
      0.078202203f, 0.48796907f,  0.59328425f,   0.13704845f,   -0.52226967f, 0.65556538f,
      0.5491212f,   0.12733053f,  -0.033326238f, 0.31997746f,   -0.68272877f, -0.99433863f,
      -0.71070153f, -0.10631683f, 0.22720391f,   -0.025990173f, 0.3678036f,   0.52803957f,
      0.13136581f,  -0.52949244f, 0.7066955f,    0.65517026f,   0.22377224f,  -0.014821549f,
      0.26106513f,  -0.62568581f, -0.97196585f,  -0.73439014f,  -0.11769819f, 0.28875244f,
      0.15758929f,  -0.22333096f, -0.28251141f,  0.18804155f,   0.78992414f,  -0.90541655f,
      -0.69430047f, -0.19703585f, 0.006014674f,  -0.29588822f,  0.67733639f,  0.86357701f,
      0.46420714f,  -0.19358796f, -0.5170722f,   0.2808139f,    -0.102043f,   -0.23103061f,
      0.17250156f,  0.77270395f,  -0.93628764f,  -0.76947844f,  -0.25116333f, 0.034516435f,
      -0.19547319f, 0.58257943f,  0.81161404f,   0.46263972f,   -0.20433074f, -0.59244925f};
  expect_near_all(y, want_mul);
  // The broadcast operand first works the same.
  Values swapped = {fp32(0, {2, 1, 1, 5}), fp32(1, {2, 2, 3, 5}), fp32(2, {2, 2, 3, 5})};
  std::fill(y.begin(), y.end(), std::nanf(""));
  run_node(swapped, mul, {&s, &a, &y}, nullptr);
  expect_near_all(y, want_mul);
  // Layouts other than these stay with XNNPACK.
  Values other = {fp32(0, {2, 2, 3, 5}), fp32(1, {1, 2, 1, 5}), fp32(2, {2, 2, 3, 5})};
  EXPECT_FALSE(xnnpack::is_float_compute_node(other, mul));

  Values sv = {fp32(0, {2, 2, 3, 5}), fp32(1, {2, 2, 3, 5})};
  Node sig;
  sig.kind = NodeKind::Sigmoid;
  sig.index = 0;
  sig.inputs[0] = 0;
  sig.num_inputs = 1;
  sig.outputs[0] = 1;
  sig.num_outputs = 1;
  std::fill(y.begin(), y.end(), std::nanf(""));
  run_node(sv, sig, {&a, &y}, nullptr);
  expect_near_all(
      y, {0.52493763f, 0.61967695f, 0.68903279f, 0.72534835f, 0.72824156f, 0.69781172f, 0.63398606f,
          0.54258454f, 0.44123402f, 0.35344788f, 0.29492652f, 0.26997235f, 0.27826992f, 0.3200855f,
          0.39440835f, 0.49170595f, 0.59096605f, 0.66998291f, 0.7172538f,  0.73093104f, 0.71139562f,
          0.65823752f, 0.57446241f, 0.47376713f, 0.37925109f, 0.31029204f, 0.27440628f, 0.27193516f,
          0.30279383f, 0.3670288f,  0.4586933f,  0.56001586f, 0.64750081f, 0.70560312f, 0.73013014f,
          0.7214098f,  0.67916447f, 0.60446292f, 0.50698948f, 0.40786192f, 0.32920447f, 0.28236201f,
          0.26910862f, 0.28906965f, 0.34265229f, 0.4267568f,  0.52752709f, 0.62181652f, 0.69037765f,
          0.72583371f, 0.72788268f, 0.69659519f, 0.63195169f, 0.54002714f, 0.43873665f, 0.35155544f,
          0.29387277f, 0.26977271f, 0.27891591f, 0.32159096f});
}

TEST(NativeFp32Test, SoftmaxOverTheLastDimMatchesAFloat64Reference) {
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  // x [3, 4, 129] (0.37, 0.2) scaled by 12 (exp arguments down to about
  // -24); row 5 holds -inf at every third column (a masked row); 1548
  // elements, rows split over the pool.
  const size_t rows = 12, cols = 129;
  std::vector<float> x = sines(rows * cols, 0.37, 0.2);
  for (float& e : x) e *= 12.0f;
  for (size_t c = 0; c < cols; c += 3) x[5 * cols + c] = -std::numeric_limits<float>::infinity();
  Values v = {fp32(0, {3, 4, cols}), fp32(1, {3, 4, cols})};
  Node sm;
  sm.kind = NodeKind::Softmax;
  sm.index = 0;
  sm.inputs[0] = 0;
  sm.num_inputs = 1;
  sm.outputs[0] = 1;
  sm.num_outputs = 1;
  EXPECT_FALSE(xnnpack::is_native_node(v, sm, false)) << "native_fp32=false keeps XNNPACK's";
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
    std::vector<float> y(rows * cols, std::nanf(""));
    run_node(v, sm, {&x, &y}, pool);
    double max_err = 0.0;
    for (size_t r = 0; r < rows; ++r) {
      double m = -std::numeric_limits<double>::infinity(), sum = 0.0;
      for (size_t c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(x[r * cols + c]));
      for (size_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(x[r * cols + c]) - m);
      for (size_t c = 0; c < cols; ++c) {
        const double want = std::exp(static_cast<double>(x[r * cols + c]) - m) / sum;
        const double got = y[r * cols + c];
        // exp within 2 ulp, the sum and the reciprocal product a few more,
        // plus the float rounding of the argument x - max (half an ulp of
        // |x - max|, relative in exp).
        if (std::isinf(x[r * cols + c])) {
          EXPECT_EQ(got, 0.0) << "row " << r << " col " << c << ": a masked element";
          continue;
        }
        const double arg = std::fabs(static_cast<double>(x[r * cols + c]) - m);
        const double bound = want * (8e-7 + arg * 6e-8) + 1e-30;
        EXPECT_NEAR(got, want, bound) << "row " << r << " col " << c;
        max_err = std::max(max_err, std::fabs(got - want) / bound);
      }
    }
    std::printf("softmax: max error vs float64 %.3g of the bound (pool %s)\n", max_err,
                pool == nullptr ? "none" : "2 threads");
  }
}

TEST(NativeFp32Test, AddEqualShapesAndBroadcastMatchFloat64Sums) {
  // a [2, 2, 3, 5] (0.41, 0.1) plus s [2, 1, 1, 5] (0.7, 0.9) or plus b of
  // a's shape (0.23, 0.4), clamped to [-1.5, 1.25] the second time. The
  // float64 sum rounded once is the float sum exactly.
  Values v = {fp32(0, {2, 2, 3, 5}), fp32(1, {2, 1, 1, 5}), fp32(2, {2, 2, 3, 5})};
  Node add = gemm_node(NodeKind::Add, false, -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::infinity());
  ASSERT_TRUE(xnnpack::is_float_compute_node(v, add));
  EXPECT_FALSE(xnnpack::is_native_node(v, add, false)) << "native_fp32=false keeps XNNPACK's";
  std::vector<float> a = sines(60, 0.41, 0.1), s = sines(10, 0.7, 0.9), y(60, std::nanf(""));
  run_node(v, add, {&a, &s, &y}, nullptr);
  for (size_t i = 0; i < 60; ++i) {
    const size_t img = i / 30, c = i % 5;
    const double want = static_cast<double>(a[i]) + static_cast<double>(s[img * 5 + c]);
    ASSERT_EQ(y[i], static_cast<float>(want)) << "element " << i;
  }
  Values same = {fp32(0, {2, 2, 3, 5}), fp32(1, {2, 2, 3, 5}), fp32(2, {2, 2, 3, 5})};
  Node clamped = gemm_node(NodeKind::Add, false, -1.5f, 1.25f);
  std::vector<float> b = sines(60, 0.23, 0.4);
  std::fill(y.begin(), y.end(), std::nanf(""));
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  run_node(same, clamped, {&a, &b, &y}, tp.get());
  for (size_t i = 0; i < 60; ++i) {
    const double sum = static_cast<double>(a[i]) + static_cast<double>(b[i]);
    ASSERT_EQ(y[i], static_cast<float>(std::min(1.25, std::max(-1.5, sum)))) << "element " << i;
  }
}

TEST(NativeFp32Test, TransposesMoveEveryElementWhereThePermutationSays) {
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  // Shapes whose planes are transposed (the input's innermost dim moves)
  // with sizes off the 8 x 8 register tiles and the 64-element blocks, and
  // one that copies rows. Element i of the input is i plus a NaN payload
  // at one place (bits must move unchanged).
  struct Case {
    std::vector<size_t> dims;
    std::vector<size_t> perm;
  };
  const Case cases[] = {{{1, 4, 128, 64}, {0, 1, 3, 2}},
                        {{3, 77, 131}, {2, 0, 1}},
                        {{2, 5, 70, 9}, {0, 3, 1, 2}},
                        {{6, 200}, {1, 0}},
                        {{4, 3, 33}, {1, 0, 2}}};
  for (const Case& cs : cases) {
    const uint32_t rank = static_cast<uint32_t>(cs.dims.size());
    std::vector<size_t> odims(rank);
    size_t total = 1;
    for (uint32_t i = 0; i < rank; ++i) {
      odims[i] = cs.dims[cs.perm[i]];
      total *= cs.dims[i];
    }
    std::vector<float> x(total);
    for (size_t i = 0; i < total; ++i) x[i] = static_cast<float>(i);
    uint32_t payload = 0x7FA00123u;  // a signalling NaN
    std::memcpy(&x[total / 3], &payload, 4);
    Values v = {fp32(0, cs.dims), fp32(1, odims)};
    const Node t = transpose_node(0, 0, 1, cs.perm);
    ASSERT_TRUE(xnnpack::is_native_node(v, t));
    ASSERT_EQ(xnnpack::check_native_node(v, t, 0), Error::Ok);
    // The input index of every output element, from the output's dims.
    std::vector<size_t> istride(rank);
    size_t acc = 1;
    for (uint32_t i = rank; i-- > 0;) {
      istride[i] = acc;
      acc *= cs.dims[i];
    }
    for (ThreadPool* pool :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
      std::vector<float> y(total, std::nanf(""));
      xnnpack::NativeState st;
      std::vector<uint8_t*> bufs = {reinterpret_cast<uint8_t*>(x.data()),
                                    reinterpret_cast<uint8_t*>(y.data())};
      ASSERT_EQ(xnnpack::run_native_node(v, t, st, bufs.data(), pool, nullptr, 0), Error::Ok);
      size_t wrong = 0;
      for (size_t o = 0; o < total; ++o) {
        size_t rem = o, src = 0;
        for (uint32_t d = rank; d-- > 0;) {
          src += (rem % odims[d]) * istride[cs.perm[d]];
          rem /= odims[d];
        }
        if (std::memcmp(&y[o], &x[src], 4) != 0 && ++wrong <= 3)
          ADD_FAILURE() << "output " << o << " should be input " << src;
      }
      EXPECT_EQ(wrong, 0u) << "rank " << rank << (pool ? " pool" : "");
    }
  }
}

// conv -> sigmoid -> multiply(x, sigmoid(x)) as the exporter writes SiLU.
struct SiluGraph {
  std::vector<float> w = sines(48, 0.31, 1.3);
  // 0: x [1, 2, 3, 8], 1: filter [6, 1, 1, 8], 2: conv out, 3: sigmoid, 4: product
  Values v = {fp32(0, {1, 2, 3, 8}), fp32(1, {6, 1, 1, 8}, &w), fp32(2, {1, 2, 3, 6}),
              fp32(3, {1, 2, 3, 6}), fp32(4, {1, 2, 3, 6})};
  std::vector<Node> nodes;
  SiluGraph() {
    Node conv = gemm_node(NodeKind::Conv2d, false, -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::infinity());
    set_conv(&conv, {0, 0, 0, 0}, 1, 1, 1, 1, 1, 1, 8, 6);
    conv.index = 0;
    Node sig = conv;
    sig.kind = NodeKind::Sigmoid;
    sig.index = 1;
    sig.inputs[0] = 2;
    sig.num_inputs = 1;
    sig.outputs[0] = 3;
    Node mul = sig;
    mul.kind = NodeKind::Multiply;
    mul.index = 2;
    mul.inputs[0] = 3;
    mul.inputs[1] = 2;
    mul.num_inputs = 2;
    mul.outputs[0] = 4;
    nodes = {conv, sig, mul};
  }
};

TEST(NativeFp32Test, SiluAfterAConvolutionIsFusedAndMatchesPyTorch) {
  SiluGraph g;
  ASSERT_TRUE(xnnpack::is_float_compute_node(g.v, g.nodes[0]))
      << "the native fp32 path is always built";
  Arena arena;
  std::vector<xnnpack::NativeState> st(3);
  for (const Node& n : g.nodes)
    ASSERT_EQ(xnnpack::prepare_native_node(g.v, n, 0, &arena.alloc, &st[n.index]), Error::Ok);
  ASSERT_EQ(xnnpack::fuse_silu(g.v, g.nodes, {true, true, true}, &st), 1u);
  EXPECT_TRUE(st[0].silu);
  EXPECT_EQ(st[0].write_to, 4u);
  EXPECT_TRUE(st[1].skipped && st[2].skipped);
  std::vector<float> x = sines(48, 0.23, 0.4), y(36, std::nanf(""));
  std::vector<uint8_t*> bufs = {reinterpret_cast<uint8_t*>(x.data()),
                                const_cast<uint8_t*>(g.v[1].data), nullptr, nullptr,
                                reinterpret_cast<uint8_t*>(y.data())};
  std::vector<uint64_t> scratch(xnnpack::native_scratch_bytes(g.v, g.nodes[0]) / 8 + 8);
  for (const Node& n : g.nodes) {
    ASSERT_EQ(xnnpack::run_native_node(g.v, n, st[n.index], bufs.data(), nullptr, scratch.data(),
                                       scratch.size() * 8),
              Error::Ok);
  }
  expect_near_all(
      y, {2.7516141f,    -0.035105422f, 4.8556733f,    -0.16235775f,  -0.18996613f,  3.4793537f,
          1.8515384f,    -0.25830323f,  -0.23034976f,  1.729393f,     -0.19760007f,  1.5971791f,
          -0.071406096f, 5.3850131f,    -0.048483707f, 1.471867f,     1.5360273f,    -0.047212437f,
          0.026073109f,  -0.2389064f,   2.9625616f,    -0.15198712f,  1.1920606f,    0.36945578f,
          3.9103787f,    -0.055504974f, 2.7251446f,    -0.087602682f, -0.18248542f,  4.1934934f,
          -0.22241063f,  4.2501607f,    -0.04481224f,  2.8523333f,    -0.046915341f, -0.15683451f});
}

TEST(NativeFp32Test, SiluIsNotFusedWhenTheConvolutionOutputIsReadElsewhere) {
  SiluGraph g;
  ASSERT_TRUE(xnnpack::is_float_compute_node(g.v, g.nodes[0]))
      << "the native fp32 path is always built";
  Node extra = g.nodes[1];  // a second sigmoid of the convolution's output
  extra.index = 3;
  extra.outputs[0] = 5;
  g.nodes.push_back(extra);
  g.v.push_back(fp32(5, {1, 2, 3, 6}));
  Arena arena;
  std::vector<xnnpack::NativeState> st(4);
  for (const Node& n : g.nodes)
    ASSERT_EQ(xnnpack::prepare_native_node(g.v, n, 0, &arena.alloc, &st[n.index]), Error::Ok);
  EXPECT_EQ(xnnpack::fuse_silu(g.v, g.nodes, {true, true, true, true}, &st), 0u);
  // Nor when a node of the chain stays with XNNPACK, or the multiply clamps.
  SiluGraph h;
  std::vector<xnnpack::NativeState> st2(3);
  for (const Node& n : h.nodes)
    ASSERT_EQ(xnnpack::prepare_native_node(h.v, n, 0, &arena.alloc, &st2[n.index]), Error::Ok);
  EXPECT_EQ(xnnpack::fuse_silu(h.v, h.nodes, {true, false, true}, &st2), 0u);
  h.nodes[2].output_max = 6.0f;
  EXPECT_EQ(xnnpack::fuse_silu(h.v, h.nodes, {true, true, true}, &st2), 0u);
}

TEST(NativeFp32Test, NodesOutsideTheGemmPathStayWithXnnpack) {
  ConvCase c;
  ASSERT_TRUE(xnnpack::is_float_gemm_node(c.v, c.n)) << "the native fp32 path is always built";
  // The load option native_fp32=false.
  EXPECT_FALSE(xnnpack::is_native_node(c.v, c.n, false));
  Node same = c.n;
  same.flags = 4;  // XNN_FLAG_TENSORFLOW_SAME_PADDING
  EXPECT_FALSE(xnnpack::is_float_gemm_node(c.v, same));
  Node grouped = c.n;
  xnnpack::ConvParams two_groups = grouped.conv();
  two_groups.groups = 2;
  grouped.set_conv(two_groups);
  EXPECT_FALSE(xnnpack::is_float_gemm_node(c.v, grouped));
  Values weights_at_run_time = c.v;
  weights_at_run_time[1].data = nullptr;
  EXPECT_FALSE(xnnpack::is_float_gemm_node(weights_at_run_time, c.n));
  Values quantized = c.v;
  quantized[1].dtype = Dtype::QCInt8;
  EXPECT_FALSE(xnnpack::is_float_gemm_node(quantized, c.n));
}

// A 1-D convolution as the exporter lowers Conv1d (NHWC [N, L, 1, C], a k x 1
// filter; or [N, 1, L, C] and 1 x k), 7 taps with padding 3 and 11 with
// padding 5, stride 1: run by
// the 1-D Winograd kernel where the CPU has AVX2 (the GEMM elsewhere),
// against a float64 direct convolution; the error relative to the output's
// largest magnitude stays within 1e-4. Relu-clamped, 1 and 2 threads, with
// and without scratch (the fallback reads the original filter).
void check_one_dimensional_convolution(uint32_t k, uint32_t pad) {
  const uint32_t batch = 2, len = 41, cin = 24, cout = 35;
  const size_t olen = len + 2 * pad - k + 1;
  std::vector<float> w = sines(cout * k * cin, 0.61, 0.2);
  for (float& e : w) e *= 0.1f;
  std::vector<float> b = sines(cout, 0.7, 0.4);
  const std::vector<float> x = sines(batch * len * cin, 0.29, 0.3);
  std::vector<double> want(batch * olen * cout);
  double scale = 0.0;
  for (size_t i = 0; i < batch; ++i) {
    for (size_t t = 0; t < olen; ++t) {
      for (size_t o = 0; o < cout; ++o) {
        double acc = b[o];
        for (size_t j = 0; j < k; ++j) {
          const int64_t src = static_cast<int64_t>(t + j) - static_cast<int64_t>(pad);
          if (src < 0 || src >= static_cast<int64_t>(len)) continue;
          for (size_t c = 0; c < cin; ++c) {
            acc += static_cast<double>(x[(i * len + static_cast<size_t>(src)) * cin + c]) *
                   w[(o * k + j) * cin + c];
          }
        }
        acc = std::max(acc, 0.0);
        want[(i * olen + t) * cout + o] = acc;
        scale = std::max(scale, acc);
      }
    }
  }
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  for (bool along_h : {true, false}) {
    Values v = {
        fp32(0, along_h ? std::vector<size_t>{batch, len, 1, cin}
                        : std::vector<size_t>{batch, 1, len, cin}),
        fp32(1,
             along_h ? std::vector<size_t>{cout, k, 1, cin} : std::vector<size_t>{cout, 1, k, cin},
             &w),
        fp32(2, {cout}, &b),
        fp32(3, along_h ? std::vector<size_t>{batch, olen, 1, cout}
                        : std::vector<size_t>{batch, 1, olen, cout})};
    Node n = gemm_node(NodeKind::Conv2d, true, 0.0f, std::numeric_limits<float>::infinity());
    if (along_h) {
      set_conv(&n, {pad, 0, pad, 0}, k, 1, 1, 1, 1, 1, cin, cout);
    } else {
      set_conv(&n, {0, pad, 0, pad}, 1, k, 1, 1, 1, 1, cin, cout);
    }
    Arena arena;
    xnnpack::NativeState st;
    ASSERT_EQ(xnnpack::prepare_native_node(v, n, 0, &arena.alloc, &st), Error::Ok);
    EXPECT_EQ(st.wino1d != nullptr, opt::winograd1d_available())
        << "an AVX2 CPU takes the 1-D Winograd kernel";
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<float> xin = x;
      std::vector<float> y(want.size(), std::numeric_limits<float>::quiet_NaN());
      std::vector<uint8_t*> bufs(v.size());
      for (size_t i = 0; i < v.size(); ++i) bufs[i] = const_cast<uint8_t*>(v[i].data);
      bufs[0] = reinterpret_cast<uint8_t*>(xin.data());
      bufs[3] = reinterpret_cast<uint8_t*>(y.data());
      const size_t scratch_bytes = mode == 2 ? 0 : xnnpack::native_scratch_bytes(v, n);
      std::vector<uint64_t> scratch((scratch_bytes + 7) / 8 + 8);
      ASSERT_EQ(xnnpack::run_native_node(v, n, st, bufs.data(), mode == 1 ? tp.get() : nullptr,
                                         mode == 2 ? nullptr : scratch.data(), scratch_bytes),
                Error::Ok);
      double err = 0.0;
      for (size_t i = 0; i < want.size(); ++i) {
        err = std::max(err, std::fabs(static_cast<double>(y[i]) - want[i]));
      }
      std::printf(
          "1-D convolution, %u taps, along %s, mode %d: max error %.3g of the output's "
          "scale\n",
          k, along_h ? "H" : "W", mode, err / scale);
      EXPECT_LE(err, 1e-4 * scale)
          << k << " taps " << (along_h ? "along H" : "along W") << ", mode " << mode;
    }
  }
}

TEST(NativeFp32Test, OneDimensionalConvolutionMatchesFloat64Reference) {
  check_one_dimensional_convolution(7, 3);
  check_one_dimensional_convolution(11, 5);
}

TEST(NativeFp32Test, ShapesThatDisagreeWithTheParametersAreRefusedNamingTheNode) {
  ConvCase c;
  ASSERT_TRUE(xnnpack::is_float_gemm_node(c.v, c.n)) << "the native fp32 path is always built";
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
