// quantized_decomposed::dequantize_per_{tensor,channel,token}. Expected
// values: torch 2.15.0, torch.ops.quantized_decomposed.* on the inputs below.
#include "kernels/quantized/test/quantized_test_util.h"

namespace etr {
namespace testing {
namespace {

const char* const kPerTensor = "quantized_decomposed::dequantize_per_tensor.out";
const char* const kPerTensorT = "quantized_decomposed::dequantize_per_tensor.Tensor_out";
const char* const kPerChannel = "quantized_decomposed::dequantize_per_channel.out";
const char* const kPerToken = "quantized_decomposed::dequantize_per_token.out";

const std::vector<int8_t> kQ = {-128, -1, 0, 3, 4, 127};

TEST(DequantizePerTensorTest, FloatAndDoubleOut) {
  HostTensor q = make_tensor<int8_t>({6}, kQ);
  HostTensor out = zeros_tensor(ScalarType::Float, {6});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_tensor(q, 0.1, 3, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerTensor, {r.tensor(q), r.d(0.1), r.i(3), r.i(-128), r.i(127), r.i(kChar),
                               r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-13.100000381469727f, -0.4000000059604645f, -0.30000001192092896f,
                                0.0f, 0.10000000149011612f, 12.40000057220459f}));
  HostTensor outd = zeros_tensor(ScalarType::Double, {6});
  KernelRunner r2(quantized_test_registry());
  // the same with out_dtype=torch.float64
  ASSERT_EQ(r2.run(kPerTensor, {r2.tensor(q), r2.d(0.1), r2.i(3), r2.i(-128), r2.i(127),
                                r2.i(kChar), r2.i(kDouble), r2.tensor(outd)}),
            Error::Ok);
  EXPECT_EQ(outd.values<double>(),
            (std::vector<double>{-13.100000000000001, -0.4, -0.30000000000000004, 0.0, 0.1, 12.4}));
}

// Copies of `base` one after another, cut to n elements.
template <typename T>
std::vector<T> tiled(const std::vector<T>& base, size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base[i % base.size()];
  return v;
}

// Long enough for the vector loop (quant_vec.h) and a ragged end (45 = 5 x 8
// + 5); element by element, so torch's result is its result on kQ, tiled.
TEST(DequantizePerTensorTest, LongInputMatchesTorch) {
  HostTensor q = make_tensor<int8_t>({45}, tiled(kQ, 45));
  HostTensor out = zeros_tensor(ScalarType::Float, {45});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_tensor(q, 0.1, 3, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerTensor, {r.tensor(q), r.d(0.1), r.i(3), r.i(-128), r.i(127), r.i(kChar),
                               r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            tiled<float>({-13.100000381469727f, -0.4000000059604645f, -0.30000001192092896f, 0.0f,
                          0.10000000149011612f, 12.40000057220459f},
                         45));
}

TEST(DequantizePerChannelTest, LongUint8BlocksWithFloatScales) {
  const std::vector<uint8_t> row = {0, 1, 127, 128, 200, 255, 3, 77};
  std::vector<uint8_t> v = tiled(row, 37);
  for (uint8_t b : tiled(row, 37)) v.push_back(b);
  HostTensor q = make_tensor<uint8_t>({2, 37}, v);
  HostTensor s = make_tensor<float>({2}, {0.1f, 0.0731f});
  HostTensor z = make_tensor<int64_t>({2}, {128, 5});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 37});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_channel(q, tensor([0.1, 0.0731]), tensor([128, 5]), 0, 0, 255, torch.uint8)
  ASSERT_EQ(r.run(kPerChannel, {r.tensor(q), r.tensor(s), r.tensor(z), r.i(0), r.i(0), r.i(255),
                                r.i(kByte), r.none(), r.tensor(out)}),
            Error::Ok);
  std::vector<float> expected =
      tiled<float>({-12.800000190734863f, -12.699999809265137f, -0.10000000149011612f, 0.0f,
                    7.200000286102295f, 12.699999809265137f, -12.5f, -5.099999904632568f},
                   37);
  for (float f : tiled<float>(
           {-0.36550000309944153f, -0.2924000024795532f, 8.918200492858887f, 8.991299629211426f,
            14.254500389099121f, 18.274999618530273f, -0.1462000012397766f, 5.263199806213379f},
           37)) {
    expected.push_back(f);
  }
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(DequantizePerTensorTest, TensorScaleAndZeroPoint) {
  HostTensor q = make_tensor<int8_t>({2, 3}, kQ);
  HostTensor scale = make_tensor<float>({1}, {0.0731f});
  HostTensor zp = make_tensor<int64_t>({1}, {-5});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_tensor.tensor(q, tensor([0.0731]), tensor([-5]), -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerTensorT, {r.tensor(q), r.tensor(scale), r.tensor(zp), r.i(-128), r.i(127),
                                r.i(kChar), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-8.991299629211426f, 0.2924000024795532f, 0.36550000309944153f,
                                0.5848000049591064f, 0.6578999757766724f, 9.649200439453125f}));
}

TEST(DequantizePerTensorTest, BadArgumentsAreRefused) {
  HostTensor q = make_tensor<int8_t>({6}, kQ);
  HostTensor out = zeros_tensor(ScalarType::Float, {6});
  auto prep = [&](double scale, int64_t zp, int64_t dtype, int64_t out_dtype) {
    KernelRunner r(quantized_test_registry());
    return r.prepare(kPerTensor, {r.tensor(q), r.d(scale), r.i(zp), r.i(-128), r.i(127), r.i(dtype),
                                  r.i(out_dtype), r.tensor(out)});
  };
  EXPECT_EQ(prep(0.1, 3, kChar, kFloat), Error::Ok);
  EXPECT_EQ(prep(0.0, 3, kChar, kFloat), Error::InvalidArgument);
  EXPECT_EQ(prep(-0.1, 3, kChar, kFloat), Error::InvalidArgument);
  EXPECT_EQ(prep(0.1, -129, kChar, kFloat), Error::InvalidArgument);
  EXPECT_EQ(prep(0.1, 3, kByte, kFloat), Error::InvalidType);   // input is Char
  EXPECT_EQ(prep(0.1, 3, kChar, kDouble), Error::InvalidType);  // out is Float
  EXPECT_EQ(prep(0.1, 3, kChar, kLong), Error::InvalidType);    // not a floating out
}

TEST(DequantizePerChannelTest, WithAndWithoutZeroPoints) {
  HostTensor q = make_tensor<int8_t>({2, 3}, {-100, 5, 27, 127, -128, 0});
  HostTensor s = make_tensor<float>({3}, {0.013f, 0.2f, 0.07f});
  HostTensor z = make_tensor<int64_t>({3}, {1, -2, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_channel(q, s, z, 1, -128, 127, torch.int8)
  ASSERT_EQ(r.run(kPerChannel, {r.tensor(q), r.tensor(s), r.tensor(z), r.i(1), r.i(-128), r.i(127),
                                r.i(kChar), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-1.3130000829696655f, 1.399999976158142f, 1.8899999856948853f,
                                1.6380000114440918f, -25.200000762939453f, 0.0f}));
  KernelRunner r2(quantized_test_registry());
  // dequantize_per_channel(q, s, None, 1, -128, 127, torch.int8)
  ASSERT_EQ(r2.run(kPerChannel, {r2.tensor(q), r2.tensor(s), r2.none(), r2.i(1), r2.i(-128),
                                 r2.i(127), r2.i(kChar), r2.none(), r2.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-1.3000000715255737f, 1.0f, 1.8899999856948853f,
                                1.6510000228881836f, -25.600000381469727f, 0.0f}));
  // Double scales: computed in double, then rounded to float (differs in element 0).
  HostTensor sd = make_tensor<double>({3}, {0.013, 0.2, 0.07});
  KernelRunner r3(quantized_test_registry());
  ASSERT_EQ(r3.run(kPerChannel, {r3.tensor(q), r3.tensor(sd), r3.tensor(z), r3.i(-1), r3.i(-128),
                                 r3.i(127), r3.i(kChar), r3.none(), r3.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-1.312999963760376f, 1.399999976158142f, 1.8899999856948853f,
                                1.6380000114440918f, -25.200000762939453f, 0.0f}));
}

TEST(DequantizePerChannelTest, NegativeScaleFailsAtRun) {
  HostTensor q = make_tensor<int8_t>({2, 3}, {-100, 5, 27, 127, -128, 0});
  HostTensor s = make_tensor<float>({2}, {0.1f, -0.1f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r(quantized_test_registry());
  EXPECT_EQ(r.run(kPerChannel, {r.tensor(q), r.tensor(s), r.none(), r.i(0), r.i(-128), r.i(127),
                                r.i(kChar), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(DequantizePerTokenTest, DoubleScalesPerRow) {
  HostTensor q = make_tensor<int8_t>({2, 3}, {-100, 5, 27, 127, -128, 0});
  HostTensor s = make_tensor<double>({2, 1}, {0.013, 0.2});
  HostTensor z = make_tensor<int64_t>({2, 1}, {3, -1});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_token(q, s, z, -128, 127, torch.int8, torch.float32)
  ASSERT_EQ(r.run(kPerToken, {r.tensor(q), r.tensor(s), r.tensor(z), r.i(-128), r.i(127),
                              r.i(kChar), r.i(kFloat), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-1.3389999866485596f, 0.026000000536441803f, 0.31200000643730164f,
                                25.600000381469727f, -25.399999618530273f, 0.20000000298023224f}));
}

TEST(DequantizePerTokenTest, ZeroScaleRowsGiveZeroAsInAnUnwrittenKvCache) {
  // A quantized KV cache [B, max_S, H, D] is dequantized whole; the rows not
  // written yet have scale 0 (the exporter's QuantizedKVCache without the
  // custom SDPA). torch accepts them (and so does ExecuTorch's kernel).
  HostTensor q = make_tensor<int8_t>({2, 2, 3}, {-100, 5, 27, 127, -128, 0, 7, -7, 1, 0, 0, 0});
  HostTensor s = make_tensor<double>({2, 2, 1}, {0.013, 0.0, 0.25, 0.0});
  HostTensor z = make_tensor<int64_t>({2, 2, 1}, {3, 0, -1, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2, 3});
  KernelRunner r(quantized_test_registry());
  // dequantize_per_token(q, s, z, -128, 127, torch.int8, torch.float32)
  ASSERT_EQ(r.run(kPerToken, {r.tensor(q), r.tensor(s), r.tensor(z), r.i(-128), r.i(127),
                              r.i(kChar), r.i(kFloat), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-1.3389999866485596f, 0.026000000536441803f, 0.31200000643730164f,
                                0.0f, -0.0f, 0.0f, 2.0f, -1.5f, 0.5f, 0.0f, 0.0f, 0.0f}));
  // A scale count that does not match the tokens is still refused.
  HostTensor s3 = make_tensor<double>({3, 1}, {0.1, 0.1, 0.1});
  HostTensor z3 = make_tensor<int64_t>({3, 1}, {0, 0, 0});
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.run(kPerToken, {r2.tensor(q), r2.tensor(s3), r2.tensor(z3), r2.i(-128), r2.i(127),
                               r2.i(kChar), r2.i(kFloat), r2.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
