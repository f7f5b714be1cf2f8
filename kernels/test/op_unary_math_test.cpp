// Tests for the unary floating math kernels. Expected values were computed
// with PyTorch eager (CPU, float32) from the same inputs.
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

struct UnaryCase {
  const char* op;
  std::vector<float> expected;  // for the input {0.25, 1, 2.5, 4, 0.5, 9}
};

class OpUnaryMathTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(OpUnaryMathTest, MatchesPyTorchOnFloat) {
  const UnaryCase& c = GetParam();
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, {0.25f, 1.0f, 2.5f, 4.0f, 0.5f, 9.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run(c.op, {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), c.expected, 2e-6, 1e-6);
}

// Every operator of the suite, one case each.
const UnaryCase kUnaryCases[] = {
    UnaryCase{"aten::sqrt.out", {0.5f, 1.0f, 1.5811388492584229f, 2.0f, 0.7071067690849304f, 3.0f}},
    UnaryCase{"aten::rsqrt.out",
              {2.0f, 1.0f, 0.6324555277824402f, 0.5f, 1.4142135381698608f, 0.3333333432674408f}},
    UnaryCase{"aten::exp.out",
              {1.2840254306793213f, 2.7182817459106445f, 12.182494163513184f, 54.598148345947266f,
               1.6487212181091309f, 8103.083984375f}},
    UnaryCase{"aten::expm1.out",
              {0.2840254306793213f, 1.718281865119934f, 11.182494163513184f, 53.598148345947266f,
               0.6487212777137756f, 8102.083984375f}},
    UnaryCase{"aten::log.out",
              {-1.3862943649291992f, 0.0f, 0.9162907600402832f, 1.3862943649291992f,
               -0.6931471824645996f, 2.1972246170043945f}},
    UnaryCase{"aten::log1p.out",
              {0.2231435477733612f, 0.6931471824645996f, 1.2527629137039185f, 1.6094379425048828f,
               0.40546509623527527f, 2.3025851249694824f}},
    UnaryCase{"aten::log2.out",
              {-2.0f, 0.0f, 1.3219281435012817f, 2.0f, -1.0f, 3.1699249744415283f}},
    UnaryCase{"aten::log10.out",
              {-0.6020600199699402f, 0.0f, 0.3979400098323822f, 0.6020600199699402f,
               -0.3010300099849701f, 0.9542425274848938f}},
    UnaryCase{"aten::sin.out",
              {0.24740396440029144f, 0.8414709568023682f, 0.5984721183776855f, -0.756802499294281f,
               0.4794255495071411f, 0.41211849451065063f}},
    UnaryCase{"aten::cos.out",
              {0.9689124226570129f, 0.5403023362159729f, -0.8011435866355896f, -0.6536436080932617f,
               0.8775825500488281f, -0.9111302495002747f}},
    UnaryCase{"aten::tan.out",
              {0.25534191727638245f, 1.5574077367782593f, -0.7470223307609558f, 1.1578212976455688f,
               0.5463024973869324f, -0.45231565833091736f}},
    UnaryCase{"aten::tanh.out",
              {0.24491865932941437f, 0.7615941762924194f, 0.9866142868995667f, 0.9993293285369873f,
               0.46211716532707214f, 0.9999999403953552f}},
    UnaryCase{"aten::sigmoid.out",
              {0.562176525592804f, 0.7310585975646973f, 0.9241418242454529f, 0.9820137619972229f,
               0.622459352016449f, 0.9998766183853149f}},
    UnaryCase{"aten::erf.out",
              {0.27632638812065125f, 0.8427007794380188f, 0.9995930194854736f, 1.0f,
               0.5204998850822449f, 1.0f}},
    UnaryCase{"aten::reciprocal.out",
              {4.0f, 1.0f, 0.4000000059604645f, 0.25f, 2.0f, 0.1111111119389534f}}};
static_assert(sizeof(kUnaryCases) / sizeof(kUnaryCases[0]) >= 15, "kUnaryCases lost cases");

INSTANTIATE_TEST_SUITE_P(AllOps, OpUnaryMathTest, ::testing::ValuesIn(kUnaryCases),
                         [](const ::testing::TestParamInfo<UnaryCase>& param_info) {
                           std::string name = param_info.param.op + 6;  // drop "aten::"
                           return name.substr(0, name.find('.'));
                         });

TEST(OpUnaryMathMiscTest, IntegerInputComputesInFloat) {
  KernelRunner r;
  auto x = make_tensor<int32_t>({3}, {1, 4, 0});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::sqrt.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.0f, 2.0f, 0.0f});
}

TEST(OpUnaryMathMiscTest, BoolInputComputesInFloat) {
  KernelRunner r;
  auto x = make_bool({2}, {1, 0});
  auto out = zeros_tensor(ScalarType::Float, {2});
  ASSERT_EQ(r.run("aten::exp.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {2.7182817459106445f, 1.0f});
}

TEST(OpUnaryMathMiscTest, DoubleSigmoid) {
  KernelRunner r;
  auto x = make_tensor<double>({3}, {-3.0, 0.0, 20.0});
  auto out = zeros_tensor(ScalarType::Double, {3});
  ASSERT_EQ(r.run("aten::sigmoid.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<double>(), {0.04742587317756678, 0.5, 0.9999999979388463}, 1e-12, 0);
}

TEST(OpUnaryMathMiscTest, LogOfNegativeAndZero) {
  KernelRunner r;
  auto x = make_tensor<float>({2}, {-1.0f, 0.0f});
  auto out = zeros_tensor(ScalarType::Float, {2});
  ASSERT_EQ(r.run("aten::log.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close_special(out.values<float>(), {NAN, -INFINITY});
}

TEST(OpUnaryMathMiscTest, IntegerOutIsRejected) {
  KernelRunner r;
  auto x = make_tensor<int32_t>({3}, {1, 4, 0});
  auto out = zeros_tensor(ScalarType::Int, {3});
  // PyTorch: result type Float can't be cast to the desired output type Int.
  EXPECT_EQ(r.run("aten::sqrt.out", {r.tensor(x), r.tensor(out)}), Error::InvalidType);
}

TEST(OpUnaryMathMiscTest, WrongRankOutFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  auto out = zeros_tensor(ScalarType::Float, {4});
  EXPECT_EQ(r.run("aten::exp.out", {r.tensor(x), r.tensor(out)}), Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
