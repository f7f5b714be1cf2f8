// Tests for aten::_softmax and aten::_log_softmax. Expected values were
// computed with PyTorch eager (CPU) from the same inputs.
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpSoftmaxTest, LastDim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = static_out(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::_softmax.out", {r.tensor(x), r.i(-1), r.b(false), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(),
               {0.13980774581432343f,   0.004221828188747168f,   0.8045380115509033f,
                0.05143239349126816f,   0.039112500846385956f,   0.1752900779247284f,
                1.775704845385917e-06f, 0.7855955958366394f,     0.0004294401442166418f,
                0.996976375579834f,     0.00012303666153457016f, 0.0024712574668228626f,
                0.9993999004364014f,    3.724416728800861e-06f,  0.0003352613130118698f,
                0.0002611017844174057f, 0.010867249220609665f,   0.010867249220609665f,
                0.978238582611084f,     2.6937217626255006e-05f, 0.7976018190383911f,
                0.02408548817038536f,   0.03971025347709656f,    0.13860242068767548f},
               1e-5, 1e-7);
}

TEST(OpSoftmaxTest, MiddleDim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = static_out(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::_softmax.out", {r.tensor(x), r.i(1), r.b(false), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(),
               {0.07424456626176834f,   4.195421206532046e-05f, 0.9858430027961731f,
                0.0014911500038579106f, 0.9044840335845947f,    0.07585499435663223f,
                9.475099795963615e-05f, 0.9918259382247925f,    0.02127142623066902f,
                0.9241030216217041f,    0.01406229566782713f,   0.006682870909571648f,
                0.9966208934783936f,    0.0037625462282449007f, 0.004064052831381559f,
                0.3763114809989929f,    0.000908800633624196f,  0.9206647276878357f,
                0.9944408535957336f,    0.00325573212467134f,   0.0024703764356672764f,
                0.07557275891304016f,   0.0014950813492760062f, 0.6204327344894409f},
               1e-5, 1e-7);
}

TEST(OpLogSoftmaxTest, FirstDim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = static_out(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::_log_softmax.out", {r.tensor(x), r.i(0), r.b(false), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(),
               {-7.500553131103516f,      -0.2014133334159851f,     -0.10020658373832703f,
                -0.825939416885376f,      -0.12692804634571075f,    -0.029750416055321693f,
                -12.500003814697266f,     -1.6689160474925302e-05f, -2.811967611312866f,
                -0.00020346954988781363f, -1.31326162815094f,       -0.38687101006507874f,
                -0.0005529781919904053f,  -1.7014133930206299f,     -2.3502066135406494f,
                -0.575939416885376f,      -2.1269280910491943f,     -3.529750347137451f,
                -3.6954811548639555e-06f, -11.000016212463379f,     -0.06196761503815651f,
                -8.500203132629395f,      -0.31326165795326233f,    -1.1368709802627563f},
               1e-5, 1e-6);
}

TEST(OpSoftmaxTest, LargeDoublesDoNotOverflow) {
  KernelRunner r;
  auto x = make_tensor<double>({3}, {1000.0, 1001.0, 999.0});
  auto out = zeros_tensor(ScalarType::Double, {3});
  ASSERT_EQ(r.run("aten::_softmax.out", {r.tensor(x), r.i(0), r.b(false), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<double>(), {0.2447284710547976, 0.6652409557748218, 0.09003057317038045},
               1e-12, 0);
}

TEST(OpSoftmaxTest, InvalidArgumentsFail) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = static_out(ScalarType::Float, {2, 3, 4});
  EXPECT_EQ(r.run("aten::_softmax.out", {r.tensor(x), r.i(3), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::_softmax.out", {r.tensor(x), r.i(0), r.b(true), r.tensor(out)}),
            Error::NotSupported);
  auto wrong = static_out(ScalarType::Float, {2, 3, 3});
  EXPECT_NE(r.run("aten::_log_softmax.out", {r.tensor(x), r.i(0), r.b(false), r.tensor(wrong)}),
            Error::Ok);
  auto xi = make_tensor<int64_t>({2}, {1, 2});
  auto oi = zeros_tensor(ScalarType::Long, {2});
  EXPECT_EQ(r.run("aten::_softmax.out", {r.tensor(xi), r.i(0), r.b(false), r.tensor(oi)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
