// quantized_decomposed::embedding_{byte,2bit,4bit}, mixed_mm, mixed_linear
// and add. Expected values: torch 2.15.0 with ExecuTorch 1.5.1's reference
// ops (import executorch.exir.passes._quant_patterns_and_replacements):
// torch.ops.quantized_decomposed.embedding_*(...) and, for add,
// quantize_per_tensor(dequantize_per_tensor(a, ...) + dequantize_per_tensor(b, ...), ...).
// mixed_mm / mixed_linear have no torch implementation; their values are
// x @ (w.float() * s[:, None]) and x @ (w.float() * s_expanded_per_group).T,
// exact in float for these small integers and power-of-two-ish scales.
#include "kernels/quantized/test/quantized_test_util.h"

namespace etr {
namespace testing {
namespace {

const std::vector<int8_t> kW = {-128, 5, 27, 127, 100, -1, 0, 3, 7, 8, 9, -9};

TEST(QuantizedEmbeddingTest, ByteWithGroupsAndZeroPoints) {
  HostTensor w = make_tensor<int8_t>({3, 4}, kW);
  HostTensor s = make_tensor<float>({3, 2}, {0.5f, 0.25f, 0.1f, 0.2f, 1.0f, 0.03f});
  HostTensor z = make_tensor<float>({3, 2}, {1.0f, -2.0f, 0.0f, 3.0f, -1.5f, 0.5f});
  HostTensor idx = make_tensor<int64_t>({2, 2}, {2, 0, 1, 2});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2, 4});
  KernelRunner r(quantized_test_registry());
  // embedding_byte(w, s, z, -128, 127, idx)
  ASSERT_EQ(r.run("quantized_decomposed::embedding_byte.out",
                  {r.tensor(w), r.tensor(s), r.tensor(z), r.i(-128), r.i(127), r.tensor(idx),
                   r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{8.5f, 9.5f, 0.2549999952316284f, -0.2849999964237213f, -64.5f, 2.0f,
                                7.25f, 32.25f, 10.0f, -0.10000000149011612f, -0.6000000238418579f,
                                0.0f, 8.5f, 9.5f, 0.2549999952316284f, -0.2849999964237213f}));
}

TEST(QuantizedEmbeddingTest, ByteDtypeDoubleWithoutZeroPoints) {
  HostTensor w = make_tensor<int8_t>({3, 4}, kW);
  HostTensor s = make_tensor<float>({3}, {0.5f, 0.1f, 0.03f});
  HostTensor idx = make_tensor<int32_t>({2}, {1, 0});
  HostTensor out = zeros_tensor(ScalarType::Double, {2, 4});
  KernelRunner r(quantized_test_registry());
  // embedding_byte.dtype(w, s, None, -128, 127, idx, dtype=torch.float64)
  ASSERT_EQ(r.run("quantized_decomposed::embedding_byte.dtype_out",
                  {r.tensor(w), r.tensor(s), r.none(), r.i(-128), r.i(127), r.tensor(idx),
                   r.i(kDouble), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<double>(),
            (std::vector<double>{10.0, -0.10000000149011612, 0.0, 0.30000001192092896, -64.0, 2.5,
                                 13.5, 63.5}));
  // An index past the last row fails at run.
  HostTensor bad = make_tensor<int32_t>({2}, {1, 3});
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.run("quantized_decomposed::embedding_byte.dtype_out",
                   {r2.tensor(w), r2.tensor(s), r2.none(), r2.i(-128), r2.i(127), r2.tensor(bad),
                    r2.i(kDouble), r2.tensor(out)}),
            Error::InvalidArgument);
}

TEST(QuantizedEmbeddingTest, FourBitHighNibbleFirst) {
  HostTensor w = make_tensor<uint8_t>({2, 3}, {0x1F, 0x80, 0xA7, 0xFF, 0x00, 0x3C});
  HostTensor s = make_tensor<float>({2, 3}, {0.5f, 0.25f, 2.0f, 0.1f, 0.2f, 0.3f});
  HostTensor idx = make_tensor<int64_t>({3}, {1, 0, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 6});
  KernelRunner r(quantized_test_registry());
  // embedding_4bit(w, s, None, -8, 7, idx)
  ASSERT_EQ(
      r.run("quantized_decomposed::embedding_4bit.out",
            {r.tensor(w), r.tensor(s), r.none(), r.i(-8), r.i(7), r.tensor(idx), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{0.699999988079071f, 0.699999988079071f, -1.600000023841858f,
                          -1.600000023841858f, -1.5f, 1.2000000476837158f, -3.5f, 3.5f, 0.0f, -2.0f,
                          4.0f, -2.0f, 0.699999988079071f, 0.699999988079071f, -1.600000023841858f,
                          -1.600000023841858f, -1.5f, 1.2000000476837158f}));
  // The quant range must be [-8, 7].
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.prepare("quantized_decomposed::embedding_4bit.out",
                       {r2.tensor(w), r2.tensor(s), r2.none(), r2.i(-128), r2.i(127),
                        r2.tensor(idx), r2.tensor(out)}),
            Error::InvalidArgument);
}

TEST(QuantizedEmbeddingTest, TwoBitLowBitsFirst) {
  HostTensor w = make_tensor<uint8_t>({2, 2}, {0b11100100, 0b00011011, 0b01010101, 0b10101010});
  HostTensor s = make_tensor<float>({2}, {0.5f, 0.25f});
  HostTensor z = make_tensor<float>({2}, {0.5f, -1.0f});
  HostTensor idx = make_tensor<int64_t>({2}, {0, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 8});
  KernelRunner r(quantized_test_registry());
  // embedding_2bit(w, s, z, -2, 1, idx)
  ASSERT_EQ(
      r.run("quantized_decomposed::embedding_2bit.out",
            {r.tensor(w), r.tensor(s), r.tensor(z), r.i(-2), r.i(1), r.tensor(idx), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-1.25f, -0.75f, -0.25f, 0.25f, 0.25f, -0.25f, -0.75f, -1.25f, 0.0f,
                                0.0f, 0.0f, 0.0f, 0.25f, 0.25f, 0.25f, 0.25f}));
}

TEST(MixedMatmulTest, MixedMmScalesPerWeightRow) {
  HostTensor x = make_tensor<float>({2, 3}, {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f});
  HostTensor w = make_tensor<int8_t>({3, 2}, {1, -2, 3, 4, -5, 6});
  HostTensor s = make_tensor<float>({3}, {0.5f, 0.25f, 2.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r(quantized_test_registry());
  ASSERT_EQ(r.run("quantized_decomposed::mixed_mm.out",
                  {r.tensor(x), r.tensor(w), r.tensor(s), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-20.5f, 22.5f, 8.4375f, -10.25f}));
  // Zero points are not supported: refused at load.
  KernelRunner r2(quantized_test_registry());
  EXPECT_EQ(r2.prepare("quantized_decomposed::mixed_mm.out",
                       {r2.tensor(x), r2.tensor(w), r2.tensor(s), r2.tensor(s), r2.tensor(out)}),
            Error::NotSupported);
}

TEST(MixedMatmulTest, MixedLinearGroupedScales) {
  HostTensor x =
      make_tensor<float>({2, 5}, {0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 1.5f, 0.25f, -0.75f, 0.0f, 2.0f});
  HostTensor w = make_tensor<int8_t>({3, 5}, {1, -2, 3, 4, -5, 6, 7, -8, 9, 10, -1, 0, 1, 2, 3});
  HostTensor s = make_tensor<float>({3, 2}, {0.5f, 0.25f, 0.1f, 2.0f, 1.0f, 0.75f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r(quantized_test_registry());
  ASSERT_EQ(r.run("quantized_decomposed::mixed_linear.out",
                  {r.tensor(x), r.tensor(w), r.tensor(s), r.none(), r.i(kFloat), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{5.875f, 6.0f, 1.875f, -3.125f, 41.67499923706055f, 2.25f}));
}

TEST(QuantizedAddTest, DequantizeAddQuantize) {
  HostTensor a = make_tensor<int8_t>({6}, {-128, -10, 0, 5, 100, 127});
  HostTensor b = make_tensor<int8_t>({6}, {3, 7, -1, 127, 100, -128});
  HostTensor out = zeros_tensor(ScalarType::Char, {6});
  auto run = [&](double out_scale) {
    KernelRunner r(quantized_test_registry());
    return r.run(
        "quantized_decomposed::add.out",
        {r.tensor(a), r.d(0.05), r.i(2), r.i(-128), r.i(127), r.tensor(b), r.d(0.02), r.i(-3),
         r.i(-128), r.i(127), r.d(out_scale), r.i(1), r.i(-128), r.i(127), r.tensor(out)});
  };
  ASSERT_EQ(run(0.07), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{-90, -5, 0, 40, 100, 55}));
  EXPECT_EQ(run(0.0), Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
