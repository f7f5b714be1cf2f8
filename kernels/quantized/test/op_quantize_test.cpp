// quantized_decomposed::quantize_per_{tensor,channel,token}. Expected values:
// torch 2.15.0, torch.ops.quantized_decomposed.* (registered by importing
// torch.ao.quantization.fx._decomposed) on the inputs below.
#include <cmath>
#include <limits>

#include "kernels/quantized/test/quantized_test_util.h"

namespace etr {
namespace testing {
namespace {

const char* const kPerTensor = "quantized_decomposed::quantize_per_tensor.out";
const char* const kPerTensorT = "quantized_decomposed::quantize_per_tensor.Tensor_out";
const char* const kPerChannel = "quantized_decomposed::quantize_per_channel.out";
const char* const kPerToken = "quantized_decomposed::quantize_per_token.out";

// x * 2 hits the ties -2.5, -1.5, -0.5, 0.5, 1.5, 2.5 (round half to even),
// +-100 clamp, 0.1 and 3.3 are not exact in float.
const std::vector<float> kTies = {-1.25f, -0.75f, -0.25f,  0.25f, 0.75f,
                                  1.25f,  100.0f, -100.0f, 0.1f,  3.3f};

Error quantize(HostTensor& x, double scale, int64_t zp, int64_t qmin, int64_t qmax, int64_t dtype,
               HostTensor& out) {
  KernelRunner r(quantized_test_registry());
  return r.run(kPerTensor,
               {r.tensor(x), r.d(scale), r.i(zp), r.i(qmin), r.i(qmax), r.i(dtype), r.tensor(out)});
}

TEST(QuantizePerTensorTest, RoundsHalfToEvenAndClamps) {
  HostTensor x = make_tensor<float>({10}, kTies);
  HostTensor out = zeros_tensor(ScalarType::Char, {10});
  // quantize_per_tensor(x, 0.5, 3, -128, 127, torch.int8)
  ASSERT_EQ(quantize(x, 0.5, 3, -128, 127, kChar, out), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{1, 1, 3, 3, 5, 5, 127, -128, 3, 10}));
  // quantize_per_tensor(x, 0.5, 3, -10, 10, torch.int8): a narrower range
  ASSERT_EQ(quantize(x, 0.5, 3, -10, 10, kChar, out), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{1, 1, 3, 3, 5, 5, 10, -10, 3, 10}));
  // quantize_per_tensor(x, 0.5, 128, 0, 255, torch.uint8)
  HostTensor u = zeros_tensor(ScalarType::Byte, {10});
  ASSERT_EQ(quantize(x, 0.5, 128, 0, 255, kByte, u), Error::Ok);
  EXPECT_EQ(u.values<uint8_t>(),
            (std::vector<uint8_t>{126, 126, 128, 128, 130, 130, 255, 0, 128, 135}));
}

// Copies of `base` one after another, cut to n elements.
template <typename T>
std::vector<T> tiled(const std::vector<T>& base, size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base[i % base.size()];
  return v;
}

// Long enough for the vector loops (quant_vec.h) and a ragged end: 139 =
// 4 x 32 + 11. The operation is element by element, so torch's result on the
// tiled input is its result on the 15 base values, tiled.
TEST(QuantizePerTensorTest, LongInputsMatchTorchElementForElement) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> base = kTies;
  for (float v : {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e30f, -1e30f}) {
    base.push_back(v);
  }
  const size_t n = 139;
  HostTensor x = make_tensor<float>({static_cast<int64_t>(n)}, tiled(base, n));
  HostTensor out = zeros_tensor(ScalarType::Char, {static_cast<int64_t>(n)});
  // quantize_per_tensor(x, 0.5, 3, -128, 127, torch.int8): NaN gives 0
  ASSERT_EQ(quantize(x, 0.5, 3, -128, 127, kChar, out), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(),
            tiled<int8_t>({1, 1, 3, 3, 5, 5, 127, -128, 3, 10, 0, 127, -128, 127, -128}, n));
  // quantize_per_tensor(x, 0.5, 128, 0, 255, torch.uint8)
  HostTensor u = zeros_tensor(ScalarType::Byte, {static_cast<int64_t>(n)});
  ASSERT_EQ(quantize(x, 0.5, 128, 0, 255, kByte, u), Error::Ok);
  EXPECT_EQ(u.values<uint8_t>(),
            tiled<uint8_t>({126, 126, 128, 128, 130, 130, 255, 0, 128, 135, 0, 255, 0, 255, 0}, n));
}

TEST(QuantizePerTensorTest, TensorScaleAndZeroPoint) {
  HostTensor x = make_tensor<float>({2, 5}, kTies);
  HostTensor scale = make_tensor<double>({1}, {0.0731});
  HostTensor zp = make_tensor<int64_t>({1}, {-5});
  HostTensor out = zeros_tensor(ScalarType::Char, {2, 5});
  KernelRunner r(quantized_test_registry());
  // quantize_per_tensor.tensor(x, tensor([0.0731], f64), tensor([-5]), -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerTensorT, {r.tensor(x), r.tensor(scale), r.tensor(zp), r.i(-128), r.i(127),
                                r.i(kChar), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int8_t>(),
            (std::vector<int8_t>{-22, -15, -8, -2, 5, 12, 127, -128, -4, 40}));
}

TEST(QuantizePerTensorTest, BadArgumentsAreRefusedAtLoad) {
  HostTensor x = make_tensor<float>({10}, kTies);
  HostTensor out = zeros_tensor(ScalarType::Char, {10});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double bad : {0.0, -0.5, nan, std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(quantize(x, bad, 0, -128, 127, kChar, out), Error::InvalidArgument) << bad;
  }
  EXPECT_EQ(quantize(x, 0.5, 128, -128, 127, kChar, out), Error::InvalidArgument);  // zp > qmax
  EXPECT_EQ(quantize(x, 0.5, 0, -129, 127, kChar, out), Error::InvalidArgument);    // < int8 min
  EXPECT_EQ(quantize(x, 0.5, 0, 5, 4, kChar, out), Error::InvalidArgument);         // empty range
  EXPECT_EQ(quantize(x, 0.5, 0, 0, 255, kByte, out), Error::InvalidType);           // out is Char
  EXPECT_EQ(quantize(x, 0.5, 0, 0, 1, kFloat, out), Error::InvalidType);  // not a quant type
  HostTensor xd = make_tensor<double>({2}, {1.0, 2.0});
  HostTensor outd = zeros_tensor(ScalarType::Char, {2});
  EXPECT_EQ(quantize(xd, 0.5, 0, -128, 127, kChar, outd),
            Error::InvalidType);  // input must be Float
}

TEST(QuantizePerTensorTest, BadScaleTensorFailsAtRun) {
  HostTensor x = make_tensor<float>({3}, {1.0f, 2.0f, 3.0f});
  HostTensor out = zeros_tensor(ScalarType::Char, {3});
  HostTensor zp = make_tensor<int64_t>({1}, {0});
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    HostTensor scale = make_tensor<double>({1}, {bad});
    KernelRunner r(quantized_test_registry());
    EXPECT_EQ(r.run(kPerTensorT, {r.tensor(x), r.tensor(scale), r.tensor(zp), r.i(-128), r.i(127),
                                  r.i(kChar), r.tensor(out)}),
              Error::InvalidArgument)
        << bad;
  }
  HostTensor scale = make_tensor<float>({1}, {0.5f});
  HostTensor big_zp = make_tensor<int64_t>({1}, {300});
  KernelRunner r(quantized_test_registry());
  EXPECT_EQ(r.run(kPerTensorT, {r.tensor(x), r.tensor(scale), r.tensor(big_zp), r.i(-128), r.i(127),
                                r.i(kChar), r.tensor(out)}),
            Error::InvalidArgument);
  HostTensor two = make_tensor<float>({2}, {0.5f, 0.5f});
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.run(kPerTensorT, {r2.tensor(x), r2.tensor(two), r2.tensor(zp), r2.i(-128), r2.i(127),
                                 r2.i(kChar), r2.tensor(out)}),
            Error::InvalidArgument);
}

TEST(QuantizePerChannelTest, FloatScalesAlongAxis1) {
  HostTensor x = make_tensor<float>({2, 3, 2}, {3.08f, -0.59f, -4.36f, 1.14f, -2.17f, -2.8f, 0.81f,
                                                1.68f, -1.44f, -0.81f, -1.19f, 0.36f});
  HostTensor s = make_tensor<float>({3}, {0.05f, 0.1f, 0.25f});
  HostTensor z = make_tensor<int64_t>({3}, {0, 2, -3});
  HostTensor out = zeros_tensor(ScalarType::Char, {2, 3, 2});
  for (int64_t axis : {1, -2}) {
    KernelRunner r(quantized_test_registry());
    // quantize_per_channel(x, s, z, 1, -128, 127, torch.int8)
    ASSERT_EQ(r.run(kPerChannel, {r.tensor(x), r.tensor(s), r.tensor(z), r.i(axis), r.i(-128),
                                  r.i(127), r.i(kChar), r.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(out.values<int8_t>(),
              (std::vector<int8_t>{62, -12, -42, 13, -12, -14, 16, 34, -12, -6, -8, -2}));
  }
}

TEST(QuantizePerChannelTest, DoubleScalesAlongAxis0) {
  HostTensor x = make_tensor<float>({3, 4}, {-1.713f, 2.201f, -2.142f, 0.245f, -1.133f, 0.746f,
                                             -1.784f, -3.018f, 0.741f, 2.913f, 1.88f, 1.55f});
  HostTensor s = make_tensor<double>({3}, {0.03, 0.07, 0.011});
  HostTensor z = make_tensor<int32_t>({3}, {1, 0, -1});
  HostTensor out = zeros_tensor(ScalarType::Char, {3, 4});
  KernelRunner r(quantized_test_registry());
  // quantize_per_channel(x, s (float64), z, 0, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerChannel, {r.tensor(x), r.tensor(s), r.tensor(z), r.i(0), r.i(-128), r.i(127),
                                r.i(kChar), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int8_t>(),
            (std::vector<int8_t>{-56, 74, -70, 9, -16, 11, -25, -43, 66, 127, 127, 127}));
}

// Rows of 37 and channel blocks of 45: the vector loops with ragged ends,
// Float scales (the Double ones above take the plain loop).
TEST(QuantizePerTokenTest, LongRowsWithFloatScales) {
  std::vector<float> rows = tiled(kTies, 37);
  for (size_t i = 0; i < 37; ++i) rows.push_back(kTies[i % 10] * 3.0f);
  HostTensor x = make_tensor<float>({2, 37}, rows);
  HostTensor s = make_tensor<float>({2, 1}, {0.01f, 0.04f});
  HostTensor z = make_tensor<int64_t>({2, 1}, {4, -2});
  HostTensor out = zeros_tensor(ScalarType::Char, {2, 37});
  KernelRunner r(quantized_test_registry());
  // quantize_per_token(x, s (float32), z, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerToken, {r.tensor(x), r.tensor(s), r.tensor(z), r.i(-128), r.i(127),
                              r.i(kChar), r.tensor(out)}),
            Error::Ok);
  std::vector<int8_t> expected =
      tiled<int8_t>({-121, -71, -21, 29, 79, 127, 127, -128, 14, 127}, 37);
  for (int8_t v : tiled<int8_t>({-96, -58, -21, 17, 54, 92, 127, -128, 6, 127}, 37)) {
    expected.push_back(v);
  }
  EXPECT_EQ(out.values<int8_t>(), expected);
}

TEST(QuantizePerChannelTest, LongChannelBlocks) {
  std::vector<float> v = tiled(kTies, 45);
  for (size_t i = 0; i < 45; ++i) v.push_back(kTies[i % 10] * 0.5f);
  for (size_t i = 0; i < 45; ++i) v.push_back(kTies[i % 10] * -2.0f);
  HostTensor x = make_tensor<float>({3, 5, 9}, v);
  HostTensor s = make_tensor<float>({3}, {0.05f, 0.1f, 0.25f});
  HostTensor z = make_tensor<int64_t>({3}, {0, 2, -3});
  HostTensor out = zeros_tensor(ScalarType::Char, {3, 5, 9});
  KernelRunner r(quantized_test_registry());
  // quantize_per_channel(x, s, z, 0, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerChannel, {r.tensor(x), r.tensor(s), r.tensor(z), r.i(0), r.i(-128), r.i(127),
                                r.i(kChar), r.tensor(out)}),
            Error::Ok);
  std::vector<int8_t> expected;
  for (const std::vector<int8_t>& row :
       {std::vector<int8_t>{-25, -15, -5, 5, 15, 25, 127, -128, 2, 66},
        std::vector<int8_t>{-4, -2, 1, 3, 6, 8, 127, -128, 2, 18},
        std::vector<int8_t>{7, 3, -1, -5, -9, -13, -128, 127, -4, -29}}) {
    for (int8_t q : tiled(row, 45)) expected.push_back(q);
  }
  EXPECT_EQ(out.values<int8_t>(), expected);
}

TEST(QuantizePerChannelTest, BadAxisAndScalesAreRefused) {
  HostTensor x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor s = make_tensor<float>({3}, {0.1f, 0.0f, 0.1f});
  HostTensor z = make_tensor<int64_t>({3}, {0, 0, 0});
  HostTensor out = zeros_tensor(ScalarType::Char, {2, 3});
  KernelRunner r(quantized_test_registry());
  EXPECT_EQ(r.prepare(kPerChannel, {r.tensor(x), r.tensor(s), r.tensor(z), r.i(2), r.i(-128),
                                    r.i(127), r.i(kChar), r.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r2(quantized_test_registry());
  // Zero scale in channel 1: refused when run reads the scales.
  EXPECT_EQ(r2.run(kPerChannel, {r2.tensor(x), r2.tensor(s), r2.tensor(z), r2.i(1), r2.i(-128),
                                 r2.i(127), r2.i(kChar), r2.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r3(quantized_test_registry());
  // Three scales for two channels along axis 0.
  HostTensor good = make_tensor<float>({3}, {0.1f, 0.1f, 0.1f});
  EXPECT_EQ(r3.run(kPerChannel, {r3.tensor(x), r3.tensor(good), r3.tensor(z), r3.i(0), r3.i(-128),
                                 r3.i(127), r3.i(kChar), r3.tensor(out)}),
            Error::InvalidArgument);
}

TEST(QuantizePerTokenTest, ZeroPointAddedBeforeRounding) {
  HostTensor x = make_tensor<float>({2, 4}, {0.1f, -0.2f, 0.35f, 1.0f, 5.0f, -3.0f, 0.0f, 2.5f});
  HostTensor s = make_tensor<double>({2, 1}, {0.01, 0.04});
  HostTensor z = make_tensor<int64_t>({2, 1}, {4, -2});
  HostTensor out = zeros_tensor(ScalarType::Char, {2, 4});
  KernelRunner r(quantized_test_registry());
  // quantize_per_token(x, s, z, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerToken, {r.tensor(x), r.tensor(s), r.tensor(z), r.i(-128), r.i(127),
                              r.i(kChar), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{14, -16, 39, 104, 123, -77, -2, 60}));
  // One zero point out of range.
  HostTensor bad_z = make_tensor<int64_t>({2, 1}, {4, -200});
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.run(kPerToken, {r2.tensor(x), r2.tensor(s), r2.tensor(bad_z), r2.i(-128), r2.i(127),
                               r2.i(kChar), r2.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
