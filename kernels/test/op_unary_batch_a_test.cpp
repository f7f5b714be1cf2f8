// aten::acos, asin, atan, acosh, asinh, atanh, sinh, cosh and logit (.out).
// Expected values: torch 2.15.0 eager on CPU, torch.<op>(x) (and
// torch.logit(x, eps)) on the inputs written next to each case.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct TrigCase {
  const char* op;
  std::vector<float> expected;  // torch.<op>(x), x below
};

class OpTrigTest : public ::testing::TestWithParam<TrigCase> {};

TEST_P(OpTrigTest, MatchesPyTorchOnFloat) {
  const TrigCase& c = GetParam();
  // x = torch.tensor([-1.0, -0.5, 0.0, 0.25, 0.75, 1.0, 1.5, -2.0]).reshape(2, 4)
  HostTensor x = make_tensor<float>({2, 4}, {-1.0f, -0.5f, 0.0f, 0.25f, 0.75f, 1.0f, 1.5f, -2.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 4});
  KernelRunner r;
  ASSERT_EQ(r.run(c.op, {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 4}));
  expect_close_special(out.values<float>(), c.expected, 2e-6, 1e-6);
}

// Every operator of the suite, one case each.
const TrigCase kTrigCases[] = {
    TrigCase{"aten::acos.out",
             {3.1415927410125732f, 2.094395160675049f, 1.5707963705062866f, 1.3181160688400269f,
              0.722734272480011f, 0.0f, kNaN, kNaN}},
    TrigCase{"aten::asin.out",
             {-1.5707963705062866f, -0.5235987901687622f, 0.0f, 0.252680242061615f,
              0.8480620980262756f, 1.5707963705062866f, kNaN, kNaN}},
    TrigCase{"aten::atan.out",
             {-0.7853981852531433f, -0.46364760398864746f, 0.0f, 0.244978666305542f,
              0.6435011029243469f, 0.7853981852531433f, 0.9827936887741089f, -1.1071487665176392f}},
    // x < 1 is outside acosh's domain.
    TrigCase{"aten::acosh.out", {kNaN, kNaN, kNaN, kNaN, kNaN, 0.0f, 0.9624236822128296f, kNaN}},
    TrigCase{"aten::asinh.out",
             {-0.8813735842704773f, -0.4812118411064148f, 0.0f, 0.24746647477149963f,
              0.6931471824645996f, 0.8813735842704773f, 1.19476318359375f, -1.4436354637145996f}},
    TrigCase{"aten::atanh.out",
             {-kInf, -0.5493061542510986f, 0.0f, 0.2554128170013428f, 0.9729551076889038f, kInf,
              kNaN, kNaN}},
    TrigCase{"aten::sinh.out",
             {-1.175201177597046f, -0.5210952758789062f, 0.0f, 0.25261232256889343f,
              0.8223167061805725f, 1.175201177597046f, 2.129279375076294f, -3.6268603801727295f}},
    TrigCase{"aten::cosh.out",
             {1.5430805683135986f, 1.1276259422302246f, 1.0f, 1.0314130783081055f,
              1.2946833372116089f, 1.5430805683135986f, 2.352409601211548f, 3.7621958255767822f}}};
static_assert(sizeof(kTrigCases) / sizeof(kTrigCases[0]) >= 8, "kTrigCases lost cases");

INSTANTIATE_TEST_SUITE_P(AllOps, OpTrigTest, ::testing::ValuesIn(kTrigCases));

TEST(OpTrigBatchTest, AcoshOnItsDomain) {
  // torch.acosh(torch.tensor([0.5, 1.0, 1.5, 2.0, 10.0, 100.0]))
  HostTensor x = make_tensor<float>({6}, {0.5f, 1.0f, 1.5f, 2.0f, 10.0f, 100.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {6});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::acosh.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close_special(
      out.values<float>(),
      {kNaN, 0.0f, 0.9624236822128296f, 1.316957950592041f, 2.993222951889038f, 5.29829216003418f},
      2e-6, 1e-6);
}

TEST(OpTrigBatchTest, DoubleStaysDouble) {
  // xd = torch.tensor([-0.9, 0.3, 2.5], dtype=torch.float64); torch.<op>(xd)
  const std::vector<std::pair<const char*, std::vector<double>>> cases = {
      {"aten::acos.out", {2.6905658417935308, 1.2661036727794992, NAN}},
      {"aten::asin.out", {-1.1197695149986342, 0.30469265401539747, NAN}},
      {"aten::atan.out", {-0.7328151017865066, 0.2914567944778671, 1.1902899496825317}},
      {"aten::acosh.out", {NAN, NAN, 1.566799236972411}},
      {"aten::asinh.out", {-0.8088669356527824, 0.29567304756342244, 1.6472311463710958}},
      {"aten::atanh.out", {-1.4722194895832204, 0.30951960420311175, NAN}},
      {"aten::sinh.out", {-1.0265167257081753, 0.3045202934471426, 6.0502044810397875}},
      {"aten::cosh.out", {1.4330863854487745, 1.0453385141288605, 6.132289479663686}},
  };
  for (const auto& c : cases) {
    HostTensor x = make_tensor<double>({3}, {-0.9, 0.3, 2.5});
    HostTensor out = zeros_tensor(ScalarType::Double, {3});
    KernelRunner r;
    ASSERT_EQ(r.run(c.first, {r.tensor(x), r.tensor(out)}), Error::Ok) << c.first;
    expect_close_special(out.values<double>(), c.second, 1e-12, 1e-14);
  }
}

TEST(OpTrigBatchTest, IntegersAndBoolComputeInFloat) {
  // xi = torch.tensor([-2, 0, 1, 3], dtype=torch.int32): torch.<op>(xi) is float32
  const std::vector<std::pair<const char*, std::vector<float>>> cases = {
      {"aten::acos.out", {kNaN, 1.5707963705062866f, 0.0f, kNaN}},
      {"aten::asin.out", {kNaN, 0.0f, 1.5707963705062866f, kNaN}},
      {"aten::atan.out", {-1.1071487665176392f, 0.0f, 0.7853981852531433f, 1.249045729637146f}},
      {"aten::acosh.out", {kNaN, kNaN, 0.0f, 1.7627471685409546f}},
      {"aten::asinh.out", {-1.4436354637145996f, 0.0f, 0.8813735842704773f, 1.8184465169906616f}},
      {"aten::atanh.out", {kNaN, 0.0f, kInf, kNaN}},
      {"aten::sinh.out", {-3.6268603801727295f, 0.0f, 1.175201177597046f, 10.017874717712402f}},
      {"aten::cosh.out", {3.7621958255767822f, 1.0f, 1.5430805683135986f, 10.067662239074707f}},
  };
  for (const auto& c : cases) {
    HostTensor x = make_tensor<int32_t>({4}, {-2, 0, 1, 3});
    HostTensor out = zeros_tensor(ScalarType::Float, {4});
    KernelRunner r;
    ASSERT_EQ(r.run(c.first, {r.tensor(x), r.tensor(out)}), Error::Ok) << c.first;
    expect_close_special(out.values<float>(), c.second, 2e-6, 1e-6);
  }
  // torch.acos(torch.tensor([True, False])) and torch.cosh(...)
  HostTensor b = make_bool({2}, {1, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::acos.out", {r.tensor(b), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {0.0f, 1.5707963705062866f});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::cosh.out", {r2.tensor(b), r2.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.5430805683135986f, 1.0f});
}

TEST(OpTrigBatchTest, ByteIntoDoubleOutComputesInFloat) {
  // torch.ops.aten.sinh.out(torch.tensor([0, 1, 200], dtype=torch.uint8),
  //   out=torch.zeros(3, dtype=torch.float64)): sinh(200) overflows float32 first.
  HostTensor x = make_tensor<uint8_t>({3}, {0, 1, 200});
  HostTensor out = zeros_tensor(ScalarType::Double, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::sinh.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close_special(out.values<double>(), {0.0, 1.175201177597046, INFINITY}, 1e-7, 0.0);
}

TEST(OpTrigBatchTest, ZeroDimAndEmpty) {
  // torch.atan(torch.tensor(1.0)) = 0.7853981852531433
  HostTensor x = make_tensor<float>({}, {1.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::atan.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {0.7853981852531433f});
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 3});
  HostTensor eout = zeros_tensor(ScalarType::Float, {0, 3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::cosh.out", {r2.tensor(e), r2.tensor(eout)}), Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{0, 3}));
}

TEST(OpTrigBatchTest, RefusesIntegerOutAndWrongShape) {
  // torch.acos(float) into a Long out: "result type Float can't be cast to Long".
  HostTensor x = make_tensor<float>({2}, {0.5f, 0.25f});
  HostTensor lout = zeros_tensor(ScalarType::Long, {2});
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::acos.out", {r.tensor(x), r.tensor(lout)}), Error::InvalidType);
  // Integer input: computed in Float, which cannot go into an Int out either.
  HostTensor xi = make_tensor<int32_t>({2}, {0, 1});
  HostTensor iout = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::sinh.out", {r2.tensor(xi), r2.tensor(iout)}), Error::InvalidType);
  // A static out of another shape fails at run.
  HostTensor sout = static_out(ScalarType::Float, {3});
  KernelRunner r3;
  EXPECT_NE(r3.run("aten::cosh.out", {r3.tensor(x), r3.tensor(sout)}), Error::Ok);
}

// x = torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0, 1.5, -0.5, nan])
std::vector<float> logit_input() { return {0.0f, 0.1f, 0.5f, 0.9f, 1.0f, 1.5f, -0.5f, kNaN}; }

TEST(OpLogitTest, EpsClampsAndNoneDoesNot) {
  struct Case {
    bool has_eps;
    double eps;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      // torch.logit(x)
      {false,
       0.0,
       {-kInf, -2.1972246170043945f, 0.0f, 2.1972243785858154f, kInf, kNaN, kNaN, kNaN}},
      // torch.logit(x, 0.2)
      {true,
       0.2,
       {-1.3862943649291992f, -1.3862943649291992f, 0.0f, 1.3862944841384888f, 1.3862944841384888f,
        1.3862944841384888f, -1.3862943649291992f, kNaN}},
      // torch.logit(x, 0.7): lo > hi, x < lo wins first
      {true,
       0.7,
       {0.8472978472709656f, 0.8472978472709656f, 0.8472978472709656f, -0.8472977876663208f,
        -0.8472977876663208f, -0.8472977876663208f, 0.8472978472709656f, kNaN}},
      // torch.logit(x, -0.2): a negative eps clamps nothing
      {true,
       -0.2,
       {-kInf, -2.1972246170043945f, 0.0f, 2.1972243785858154f, kInf, kNaN, kNaN, kNaN}},
  };
  for (const Case& c : cases) {
    HostTensor x = make_tensor<float>({2, 4}, logit_input());
    HostTensor out = zeros_tensor(ScalarType::Float, {2, 4});
    KernelRunner r;
    ASSERT_EQ(
        r.run("aten::logit.out", {r.tensor(x), c.has_eps ? r.d(c.eps) : r.none(), r.tensor(out)}),
        Error::Ok);
    expect_close_special(out.values<float>(), c.expected, 2e-6, 1e-6);
  }
}

TEST(OpLogitTest, IntegerAndDoubleInputs) {
  // torch.logit(torch.tensor([0, 1, 2]), 0.25) is float32
  HostTensor xi = make_tensor<int64_t>({3}, {0, 1, 2});
  HostTensor out = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::logit.out", {r.tensor(xi), r.d(0.25), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(),
               {-1.0986123085021973f, 1.0986123085021973f, 1.0986123085021973f});
  // torch.logit(torch.tensor([0.25, 0.6], dtype=torch.float64), 1e-6)
  HostTensor xd = make_tensor<double>({2}, {0.25, 0.6});
  HostTensor dout = zeros_tensor(ScalarType::Double, {2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::logit.out", {r2.tensor(xd), r2.d(1e-6), r2.tensor(dout)}), Error::Ok);
  expect_close(dout.values<double>(), {-1.0986122886681098, 0.4054651081081642}, 1e-12, 1e-14);
  // Float into an Int out is refused at load.
  HostTensor iout = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::logit.out", {r3.tensor(xd), r3.none(), r3.tensor(iout)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
