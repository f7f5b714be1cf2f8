// aten::empty.out, dim_order_ops::_empty_dim_order.out, aten::rand.out and
// aten::randn.out. rand/randn use our own generator, so the tests check
// shapes, ranges, moments and determinism (torch.rand gives values in
// [0, 1) with mean 1/2 and variance 1/12; torch.randn mean 0, variance 1),
// not PyTorch's numbers.
#include <cmath>

#include "kernels/portable/creation.h"
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpEmptyTest, ResizesEveryDtype) {
  for (ScalarType t :
       {ScalarType::Float, ScalarType::Long, ScalarType::Bool, ScalarType::ComplexDouble}) {
    HostTensor out = zeros_tensor(t, {4, 5});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::empty.out", {r.int_list({2, 3}), r.none(), r.tensor(out)}), Error::Ok);
    EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 3}));
  }
  HostTensor out0 = zeros_tensor(ScalarType::Int, {});
  KernelRunner r0;
  ASSERT_EQ(r0.run("aten::empty.out", {r0.int_list({}), r0.i(0), r0.tensor(out0)}), Error::Ok);
  HostTensor oute = zeros_tensor(ScalarType::Int, {3});
  KernelRunner re;
  ASSERT_EQ(re.run("aten::empty.out", {re.int_list({0}), re.none(), re.tensor(oute)}), Error::Ok);
  EXPECT_EQ(oute.shape(), (std::vector<int32_t>{0}));
}

TEST(OpEmptyTest, Refusals) {
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::empty.out", {r.int_list({6}), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.prepare("aten::empty.out", {r.int_list({2, 3}), r.i(9), r.tensor(out)}),
            Error::InvalidArgument);
  // Negative size and a static out of another shape fail in run.
  KernelRunner r2;
  EXPECT_NE(r2.run("aten::empty.out", {r2.int_list({2, -3}), r2.none(), r2.tensor(out)}),
            Error::Ok);
  HostTensor st = static_out(ScalarType::Float, {2, 3});
  KernelRunner r3;
  EXPECT_NE(r3.run("aten::empty.out", {r3.int_list({3, 2}), r3.none(), r3.tensor(st)}), Error::Ok);
}

TEST(OpEmptyDimOrderTest, ChecksDimOrder) {
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3, 4, 5});
  HostTensor cl = *HostTensor::zeros(ScalarType::Float, {2, 3, 4, 5}, {0, 2, 3, 1},
                                     ShapeDynamism::DynamicBound);
  KernelRunner r;
  ASSERT_EQ(r.run("dim_order_ops::_empty_dim_order.out",
                  {r.int_list({1, 3, 4, 5}), r.int_list({0, 1, 2, 3}), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 3, 4, 5}));
  KernelRunner r2;
  ASSERT_EQ(r2.run("dim_order_ops::_empty_dim_order.out",
                   {r2.int_list({2, 3, 4, 5}), r2.int_list({0, 2, 3, 1}), r2.tensor(cl)}),
            Error::Ok);
  ASSERT_EQ(r2.run("dim_order_ops::_empty_dim_order.out",
                   {r2.int_list({2, 3, 4, 5}), r2.none(), r2.tensor(cl)}),
            Error::Ok);
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("dim_order_ops::_empty_dim_order.out",
                       {r3.int_list({2, 3, 4, 5}), r3.int_list({0, 2, 3, 1}), r3.tensor(out)}),
            Error::InvalidArgument);
}

// Mean and variance of v.
template <typename T>
void moments(const std::vector<T>& v, double* mean, double* var) {
  double s = 0, s2 = 0;
  for (T x : v) s += static_cast<double>(x);
  *mean = s / static_cast<double>(v.size());
  for (T x : v) s2 += (static_cast<double>(x) - *mean) * (static_cast<double>(x) - *mean);
  *var = s2 / static_cast<double>(v.size());
}

TEST(OpRandTest, UniformRangeAndMoments) {
  constexpr int32_t kN = 20000;
  for (ScalarType t : {ScalarType::Float, ScalarType::Double}) {
    HostTensor out = zeros_tensor(t, {kN / 100, 100});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::rand.out", {r.int_list({kN / 100, 100}), r.tensor(out)}), Error::Ok);
    std::vector<double> v;
    if (t == ScalarType::Float) {
      for (float x : out.values<float>()) v.push_back(x);
    } else {
      v = out.values<double>();
    }
    for (double x : v) ASSERT_TRUE(x >= 0.0 && x < 1.0) << x;
    double mean = 0, var = 0;
    moments(v, &mean, &var);
    // Standard error of the mean: sqrt(1/12 / 20000) ~ 0.002.
    EXPECT_NEAR(mean, 0.5, 0.01);
    EXPECT_NEAR(var, 1.0 / 12.0, 0.005);
  }
}

TEST(OpRandnTest, NormalMoments) {
  constexpr int32_t kN = 20000;
  HostTensor out = zeros_tensor(ScalarType::Float, {kN});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::randn.out", {r.int_list({kN}), r.tensor(out)}), Error::Ok);
  const std::vector<float> v = out.values<float>();
  double mean = 0, var = 0;
  moments(v, &mean, &var);
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(var, 1.0, 0.04);
  int within_one = 0;
  for (float x : v) within_one += std::fabs(x) < 1.0f;
  // P(|z| < 1) = 0.6827.
  EXPECT_NEAR(within_one / static_cast<double>(kN), 0.6827, 0.015);
}

TEST(OpRandTest, SeededStreamsAreDeterministic) {
  auto draw = [](const char* op) {
    HostTensor out = zeros_tensor(ScalarType::Double, {8});
    KernelRunner r;
    EXPECT_EQ(r.prepare(op, {r.int_list({8}), r.tensor(out)}), Error::Ok);
    EXPECT_EQ(r.run_prepared(), Error::Ok);
    std::vector<double> first = out.values<double>();
    EXPECT_EQ(r.run_prepared(), Error::Ok);
    std::vector<double> second = out.values<double>();
    EXPECT_NE(first, second);  // the stream advances across executes
    first.insert(first.end(), second.begin(), second.end());
    return first;
  };
  for (const char* op : {"aten::rand.out", "aten::randn.out"}) {
    seed_portable_random(42);
    const std::vector<double> a = draw(op);
    const std::vector<double> b = draw(op);  // the next instruction: another stream
    seed_portable_random(42);
    EXPECT_EQ(draw(op), a) << op;
    EXPECT_NE(a, b) << op;
    seed_portable_random(43);
    EXPECT_NE(draw(op), a) << op;
  }
}

TEST(OpRandTest, Refusals) {
  for (const char* op : {"aten::rand.out", "aten::randn.out"}) {
    // torch: "check_uniform_bounds" not implemented for 'Int'.
    HostTensor io = zeros_tensor(ScalarType::Int, {4});
    KernelRunner r;
    EXPECT_EQ(r.prepare(op, {r.int_list({4}), r.tensor(io)}), Error::InvalidType) << op;
    HostTensor fo = zeros_tensor(ScalarType::Float, {4});
    EXPECT_EQ(r.prepare(op, {r.int_list({2, 2}), r.tensor(fo)}), Error::InvalidArgument) << op;
    HostTensor st = static_out(ScalarType::Float, {4});
    KernelRunner r2;
    EXPECT_NE(r2.run(op, {r2.int_list({5}), r2.tensor(st)}), Error::Ok) << op;
    // Empty and 0-d shapes.
    HostTensor e = zeros_tensor(ScalarType::Float, {4});
    KernelRunner r3;
    ASSERT_EQ(r3.run(op, {r3.int_list({0}), r3.tensor(e)}), Error::Ok) << op;
    EXPECT_EQ(e.shape(), (std::vector<int32_t>{0}));
    HostTensor z = zeros_tensor(ScalarType::Double, {});
    KernelRunner r4;
    ASSERT_EQ(r4.run(op, {r4.int_list({}), r4.tensor(z)}), Error::Ok) << op;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
