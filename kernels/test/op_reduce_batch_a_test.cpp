// aten::max.unary_out, min.unary_out, var.out and var_mean.correction_out.
// Expected values: torch 2.15.0 eager on CPU (torch.max(x), torch.min(x),
// torch.var(x, dim, unbiased=..., keepdim=...), torch.var_mean(x, dim,
// correction=..., keepdim=...)) on the inputs of each case.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// x = torch.tensor([[1.5, -2.0, 3.25, 0.5], [4.0, 5.5, -6.0, 7.0]])
HostTensor sample_2x4() {
  return make_tensor<float>({2, 4}, {1.5f, -2.0f, 3.25f, 0.5f, 4.0f, 5.5f, -6.0f, 7.0f});
}

// ---- max.unary_out / min.unary_out

template <typename T>
T run_unary(const char* op, HostTensor& x, ScalarType out_dtype) {
  HostTensor out = zeros_tensor(out_dtype, {});
  KernelRunner r;
  EXPECT_EQ(r.run(op, {r.tensor(x), r.tensor(out)}), Error::Ok) << op;
  const std::vector<T> v = out.values<T>();
  return v.empty() ? T() : v[0];
}

TEST(OpMaxMinUnaryTest, FloatIntAndBool) {
  HostTensor x = sample_2x4();
  EXPECT_EQ(run_unary<float>("aten::max.unary_out", x, ScalarType::Float), 7.0f);
  EXPECT_EQ(run_unary<float>("aten::min.unary_out", x, ScalarType::Float), -6.0f);
  // torch.max / torch.min of torch.tensor([-3, 7, -128, 5], dtype=torch.int8)
  HostTensor i8 = make_tensor<int8_t>({2, 2}, {-3, 7, -128, 5});
  EXPECT_EQ(run_unary<int8_t>("aten::max.unary_out", i8, ScalarType::Char), 7);
  EXPECT_EQ(run_unary<int8_t>("aten::min.unary_out", i8, ScalarType::Char), -128);
  // torch.min(torch.tensor([2**62, -2**63 + 1, 5]))
  HostTensor l = make_tensor<int64_t>({3}, {int64_t{1} << 62, INT64_MIN + 1, 5});
  EXPECT_EQ(run_unary<int64_t>("aten::min.unary_out", l, ScalarType::Long), INT64_MIN + 1);
  // torch.max / torch.min of torch.tensor([False, True])
  HostTensor b = make_bool({2}, {0, 1});
  EXPECT_EQ(run_unary<bool>("aten::max.unary_out", b, ScalarType::Bool), true);
  EXPECT_EQ(run_unary<bool>("aten::min.unary_out", b, ScalarType::Bool), false);
  // 0-d: torch.max(torch.tensor(-2.5))
  HostTensor z = make_tensor<double>({}, {-2.5});
  EXPECT_EQ(run_unary<double>("aten::max.unary_out", z, ScalarType::Double), -2.5);
}

TEST(OpMaxMinUnaryTest, NanWinsAndChannelsLast) {
  // torch.max(torch.tensor([1.0, nan, 3.0])), torch.min(torch.tensor([1.0, nan, -3.0]))
  HostTensor a = make_tensor<float>({3}, {1.0f, NAN, 3.0f});
  EXPECT_TRUE(std::isnan(run_unary<float>("aten::max.unary_out", a, ScalarType::Float)));
  HostTensor b = make_tensor<float>({3}, {1.0f, NAN, -3.0f});
  EXPECT_TRUE(std::isnan(run_unary<float>("aten::min.unary_out", b, ScalarType::Float)));
  // A channels-last input reduces over all its elements the same way.
  HostTensor cl = make_tensor<float>(
      {1, 2, 2, 2}, {0.5f, -1.0f, 9.0f, 2.0f, -7.0f, 3.0f, 1.0f, 4.0f}, {0, 2, 3, 1});
  EXPECT_EQ(run_unary<float>("aten::max.unary_out", cl, ScalarType::Float), 9.0f);
  EXPECT_EQ(run_unary<float>("aten::min.unary_out", cl, ScalarType::Float), -7.0f);
}

TEST(OpMaxMinUnaryTest, CastsIntoOut) {
  // aten.max.unary_out(torch.tensor([3, 250, 7], dtype=torch.uint8), out=int64) = 250
  HostTensor u = make_tensor<uint8_t>({3}, {3, 250, 7});
  EXPECT_EQ(run_unary<int64_t>("aten::max.unary_out", u, ScalarType::Long), 250);
  // aten.min.unary_out(torch.tensor([3, -250, 7], dtype=torch.int32), out=float32) = -250.0
  HostTensor i = make_tensor<int32_t>({3}, {3, -250, 7});
  EXPECT_EQ(run_unary<float>("aten::min.unary_out", i, ScalarType::Float), -250.0f);
}

TEST(OpMaxMinUnaryTest, Refusals) {
  // "max(): Expected reduction dim to be specified for input.numel() == 0"
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 3});
  HostTensor out = zeros_tensor(ScalarType::Float, {});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::max.unary_out", {r.tensor(e), r.tensor(out)}), Error::InvalidArgument);
  // canCast(Float, Int) is false; canCast(Long, Bool) is false.
  HostTensor x = sample_2x4();
  HostTensor iout = zeros_tensor(ScalarType::Int, {});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::max.unary_out", {r2.tensor(x), r2.tensor(iout)}), Error::InvalidType);
  HostTensor l = make_tensor<int64_t>({2}, {1, 2});
  HostTensor bout = zeros_tensor(ScalarType::Bool, {});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::min.unary_out", {r3.tensor(l), r3.tensor(bout)}), Error::InvalidType);
  // out must be 0-d.
  HostTensor out1 = zeros_tensor(ScalarType::Float, {1});
  KernelRunner r4;
  EXPECT_EQ(r4.prepare("aten::min.unary_out", {r4.tensor(x), r4.tensor(out1)}),
            Error::InvalidArgument);
}

// ---- var.out

TEST(OpVarOutTest, UnbiasedAndBiased) {
  struct Case {
    bool has_dim;
    std::vector<int64_t> dim;
    bool unbiased;
    bool keepdim;
    std::vector<int32_t> out_shape;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      // torch.var(x), torch.var(x, unbiased=False)
      {false, {}, true, false, {}, {17.811384201049805f}},
      {false, {}, false, false, {}, {15.5849609375f}},
      // torch.var(x, 1)
      {true, {1}, true, false, {2}, {4.807291507720947f, 34.5625f}},
      // torch.var(x, 0, unbiased=False, keepdim=True)
      {true, {0}, false, true, {1, 4}, {1.5625f, 14.0625f, 21.390625f, 10.5625f}},
      // torch.var(x, [-1], keepdim=True)
      {true, {-1}, true, true, {2, 1}, {4.807291507720947f, 34.5625f}},
  };
  for (const Case& c : cases) {
    HostTensor x = sample_2x4();
    HostTensor out = zeros_tensor(ScalarType::Float, std::vector<int32_t>(c.out_shape.size(), 4));
    KernelRunner r;
    ASSERT_EQ(r.run("aten::var.out", {r.tensor(x), c.has_dim ? r.int_list(c.dim) : r.none(),
                                      r.b(c.unbiased), r.b(c.keepdim), r.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(out.shape(), c.out_shape);
    expect_close(out.values<float>(), c.expected, 1e-6, 1e-6);
  }
}

TEST(OpVarOutTest, DoubleEmptyListAndRefusals) {
  // aten.var.out(xd, [], True, False) with xd = [[1, 2, 4], [3, 3, 9]] (float64): all dims
  HostTensor xd = make_tensor<double>({2, 3}, {1.0, 2.0, 4.0, 3.0, 3.0, 9.0});
  HostTensor dout = zeros_tensor(ScalarType::Double, {});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::var.out", {r.tensor(xd), r.int_list({}), r.b(true), r.b(false), r.tensor(dout)}),
      Error::Ok);
  expect_close(dout.values<double>(), {7.866666666666667}, 1e-14, 0.0);
  // "std and var only support floating point and complex dtypes"
  HostTensor i = make_tensor<int32_t>({2}, {1, 2});
  HostTensor iout = zeros_tensor(ScalarType::Int, {});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::var.out",
                       {r2.tensor(i), r2.none(), r2.b(true), r2.b(false), r2.tensor(iout)}),
            Error::InvalidType);
  // Bad dim, and an out of the wrong rank.
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::var.out",
                       {r3.tensor(xd), r3.int_list({2}), r3.b(true), r3.b(false), r3.tensor(dout)}),
            Error::InvalidArgument);
  HostTensor out2 = zeros_tensor(ScalarType::Double, {2, 3});
  KernelRunner r4;
  EXPECT_EQ(r4.prepare("aten::var.out",
                       {r4.tensor(xd), r4.int_list({1}), r4.b(true), r4.b(false), r4.tensor(out2)}),
            Error::InvalidArgument);
}

// ---- var_mean.correction_out

struct VarMean {
  std::vector<int32_t> shape;
  std::vector<float> var;
  std::vector<float> mean;
};

void expect_var_mean(HostTensor& x, EValue* (*dims)(KernelRunner&), EValue* (*corr)(KernelRunner&),
                     bool keepdim, const VarMean& want) {
  HostTensor out0 = zeros_tensor(ScalarType::Float, std::vector<int32_t>(want.shape.size(), 4));
  HostTensor out1 = zeros_tensor(ScalarType::Float, std::vector<int32_t>(want.shape.size(), 4));
  KernelRunner r;
  ASSERT_EQ(r.run("aten::var_mean.correction_out",
                  {r.tensor(x), dims(r), corr(r), r.b(keepdim), r.tensor(out0), r.tensor(out1)}),
            Error::Ok);
  EXPECT_EQ(out0.shape(), want.shape);
  EXPECT_EQ(out1.shape(), want.shape);
  expect_close_special(out0.values<float>(), want.var, 1e-6, 1e-6);
  expect_close_special(out1.values<float>(), want.mean, 1e-6, 1e-6);
}

TEST(OpVarMeanTest, Corrections) {
  HostTensor x = sample_2x4();
  // torch.var_mean(x, 1, correction=0)
  expect_var_mean(
      x, [](KernelRunner& r) { return r.int_list({1}); }, [](KernelRunner& r) { return r.i(0); },
      false, {{2}, {3.60546875f, 25.921875f}, {0.8125f, 2.625f}});
  // torch.var_mean(x, None, correction=2)
  expect_var_mean(
      x, [](KernelRunner& r) { return r.none(); }, [](KernelRunner& r) { return r.i(2); }, false,
      {{}, {20.77994728088379f}, {1.71875f}});
  // torch.var_mean(x, [0], keepdim=True) (correction None = 1)
  expect_var_mean(
      x, [](KernelRunner& r) { return r.int_list({0}); }, [](KernelRunner& r) { return r.none(); },
      true, {{1, 4}, {3.125f, 28.125f, 42.78125f, 21.125f}, {2.75f, 1.75f, -1.375f, 3.75f}});
  // torch.var_mean(torch.tensor([1., 2, 4]), correction=5): too large a correction gives inf
  HostTensor y = make_tensor<float>({3}, {1.0f, 2.0f, 4.0f});
  expect_var_mean(
      y, [](KernelRunner& r) { return r.none(); }, [](KernelRunner& r) { return r.i(5); }, false,
      {{}, {INFINITY}, {2.3333332538604736f}});
}

TEST(OpVarMeanTest, EdgeCases) {
  // torch.var_mean(torch.tensor([3.0])): one element, correction 1 -> nan variance
  HostTensor one = make_tensor<float>({1}, {3.0f});
  expect_var_mean(
      one, [](KernelRunner& r) { return r.none(); }, [](KernelRunner& r) { return r.none(); },
      false, {{}, {NAN}, {3.0f}});
  // torch.var_mean(torch.zeros(0, 2), 0): nan, nan
  HostTensor empty = zeros_tensor(ScalarType::Float, {0, 2});
  expect_var_mean(
      empty, [](KernelRunner& r) { return r.int_list({0}); },
      [](KernelRunner& r) { return r.none(); }, false, {{2}, {NAN, NAN}, {NAN, NAN}});
  // torch.var_mean(torch.tensor(2.5)): 0-d
  HostTensor z = make_tensor<float>({}, {2.5f});
  expect_var_mean(
      z, [](KernelRunner& r) { return r.none(); }, [](KernelRunner& r) { return r.none(); }, false,
      {{}, {NAN}, {2.5f}});
}

TEST(OpVarMeanTest, DoubleWithFractionalCorrection) {
  // torch.var_mean(xd, [0, 1], correction=1.5), xd = [[1, 2, 4], [3, 3, 9]] (float64)
  HostTensor xd = make_tensor<double>({2, 3}, {1.0, 2.0, 4.0, 3.0, 3.0, 9.0});
  HostTensor out0 = zeros_tensor(ScalarType::Double, {});
  HostTensor out1 = zeros_tensor(ScalarType::Double, {});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::var_mean.correction_out", {r.tensor(xd), r.int_list({0, 1}), r.d(1.5),
                                                    r.b(false), r.tensor(out0), r.tensor(out1)}),
            Error::Ok);
  expect_close(out0.values<double>(), {8.74074074074074}, 1e-14, 0.0);
  expect_close(out1.values<double>(), {3.666666666666667}, 1e-14, 0.0);
}

TEST(OpVarMeanTest, Refusals) {
  HostTensor x = sample_2x4();
  HostTensor f0 = zeros_tensor(ScalarType::Float, {});
  HostTensor d0 = zeros_tensor(ScalarType::Double, {});
  // "Expected out tensor to have dtype float, but got double instead"
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::var_mean.correction_out",
                      {r.tensor(x), r.none(), r.none(), r.b(false), r.tensor(f0), r.tensor(d0)}),
            Error::InvalidType);
  // "var_mean only support floating point and complex dtypes"
  HostTensor i = make_tensor<int64_t>({2}, {1, 2});
  HostTensor l0 = zeros_tensor(ScalarType::Long, {});
  HostTensor l1 = zeros_tensor(ScalarType::Long, {});
  KernelRunner r2;
  EXPECT_EQ(
      r2.prepare("aten::var_mean.correction_out",
                 {r2.tensor(i), r2.none(), r2.none(), r2.b(false), r2.tensor(l0), r2.tensor(l1)}),
      Error::InvalidType);
  // A repeated dim, and outs of different ranks.
  HostTensor g0 = zeros_tensor(ScalarType::Float, {});
  KernelRunner r3;
  EXPECT_EQ(
      r3.prepare("aten::var_mean.correction_out", {r3.tensor(x), r3.int_list({1, -1}), r3.none(),
                                                   r3.b(false), r3.tensor(f0), r3.tensor(g0)}),
      Error::InvalidArgument);
  HostTensor v1 = zeros_tensor(ScalarType::Float, {2});
  HostTensor m2 = zeros_tensor(ScalarType::Float, {2, 1});
  KernelRunner r4;
  EXPECT_EQ(
      r4.prepare("aten::var_mean.correction_out", {r4.tensor(x), r4.int_list({1}), r4.none(),
                                                   r4.b(false), r4.tensor(v1), r4.tensor(m2)}),
      Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
