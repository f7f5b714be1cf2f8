// Tests for neg, abs, rounding, sign, bitwise_not, logical_not, isnan and
// isinf. Expected values were computed with PyTorch eager (CPU).
#include <cmath>
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor float_input() {
  return make_tensor<float>({7}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.7f, NAN});
}
HostTensor int8_input() { return make_tensor<int8_t>({5}, {-128, -3, 0, 7, 127}); }

std::vector<float> run_float(const char* op) {
  KernelRunner r;
  auto x = float_input();
  auto out = zeros_tensor(ScalarType::Float, {7});
  EXPECT_EQ(r.run(op, {r.tensor(x), r.tensor(out)}), Error::Ok);
  return out.values<float>();
}

std::vector<int8_t> run_int8(const char* op) {
  KernelRunner r;
  auto x = int8_input();
  auto out = zeros_tensor(ScalarType::Char, {5});
  EXPECT_EQ(r.run(op, {r.tensor(x), r.tensor(out)}), Error::Ok);
  return out.values<int8_t>();
}

TEST(OpUnaryTest, FloatOps) {
  expect_close_special(run_float("aten::neg.out"), {2.5f, 1.5f, 0.5f, -0.5f, -1.5f, -2.7f, NAN});
  expect_close_special(run_float("aten::abs.out"), {2.5f, 1.5f, 0.5f, 0.5f, 1.5f, 2.7f, NAN});
  expect_close_special(run_float("aten::ceil.out"), {-2.0f, -1.0f, -0.0f, 1.0f, 2.0f, 3.0f, NAN});
  expect_close_special(run_float("aten::floor.out"), {-3.0f, -2.0f, -1.0f, 0.0f, 1.0f, 2.0f, NAN});
  // Half to even.
  expect_close_special(run_float("aten::round.out"), {-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 3.0f, NAN});
  expect_close_special(run_float("aten::trunc.out"), {-2.0f, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f, NAN});
  // sign(NaN) is 0 in PyTorch.
  expect_close(run_float("aten::sign.out"), {-1.0f, -1.0f, -1.0f, 1.0f, 1.0f, 1.0f, 0.0f});
}

TEST(OpUnaryTest, Int8Ops) {
  // neg / abs of -128 wrap to -128, as in PyTorch.
  EXPECT_EQ(run_int8("aten::neg.out"), (std::vector<int8_t>{-128, 3, 0, -7, -127}));
  EXPECT_EQ(run_int8("aten::abs.out"), (std::vector<int8_t>{-128, 3, 0, 7, 127}));
  EXPECT_EQ(run_int8("aten::sign.out"), (std::vector<int8_t>{-1, -1, 0, 1, 1}));
  EXPECT_EQ(run_int8("aten::bitwise_not.out"), (std::vector<int8_t>{127, 2, -1, -8, -128}));
  EXPECT_EQ(run_int8("aten::floor.out"), (std::vector<int8_t>{-128, -3, 0, 7, 127}));
}

TEST(OpUnaryTest, BoolBitwiseNotAndSign) {
  KernelRunner r;
  auto x = make_bool({2}, {1, 0});
  auto out = static_out(ScalarType::Bool, {2});
  ASSERT_EQ(r.run("aten::bitwise_not.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), (std::vector<int>{0, 1}));
  ASSERT_EQ(r.run("aten::sign.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), (std::vector<int>{1, 0}));
}

TEST(OpUnaryTest, Predicates) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, {0.0f, NAN, -INFINITY});
  auto nan = static_out(ScalarType::Bool, {3});
  auto inf = static_out(ScalarType::Bool, {3});
  auto lnot = static_out(ScalarType::Bool, {3});
  ASSERT_EQ(r.run("aten::isnan.out", {r.tensor(x), r.tensor(nan)}), Error::Ok);
  ASSERT_EQ(r.run("aten::isinf.out", {r.tensor(x), r.tensor(inf)}), Error::Ok);
  ASSERT_EQ(r.run("aten::logical_not.out", {r.tensor(x), r.tensor(lnot)}), Error::Ok);
  EXPECT_EQ(bool_values(nan), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(bool_values(inf), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(bool_values(lnot), (std::vector<int>{1, 0, 0}));  // NaN is truthy
}

TEST(OpUnaryTest, LogicalNotIntoFloatOut) {
  KernelRunner r;
  auto x = make_tensor<int64_t>({3}, {0, 5, -1});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::logical_not.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.0f, 0.0f, 0.0f});
}

TEST(OpUnaryTest, IsnanOfIntegersIsFalse) {
  KernelRunner r;
  auto x = int8_input();
  auto out = static_out(ScalarType::Bool, {5});
  ASSERT_EQ(r.run("aten::isnan.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(OpUnaryTest, InvalidDtypesAreRejected) {
  KernelRunner r;
  auto b = make_bool({2}, {1, 0});
  auto bout = static_out(ScalarType::Bool, {2});
  EXPECT_EQ(r.run("aten::neg.out", {r.tensor(b), r.tensor(bout)}), Error::InvalidType);
  EXPECT_EQ(r.run("aten::abs.out", {r.tensor(b), r.tensor(bout)}), Error::InvalidType);
  auto f = make_tensor<float>({2}, {1.0f, 2.0f});
  auto fout = zeros_tensor(ScalarType::Float, {2});
  EXPECT_EQ(r.run("aten::bitwise_not.out", {r.tensor(f), r.tensor(fout)}), Error::InvalidType);
  auto iout = zeros_tensor(ScalarType::Long, {2});
  EXPECT_EQ(r.run("aten::floor.out", {r.tensor(f), r.tensor(iout)}), Error::InvalidType);
}

TEST(OpUnaryTest, StaticOutOfWrongShapeFails) {
  KernelRunner r;
  auto x = float_input();
  auto out = static_out(ScalarType::Float, {6});
  EXPECT_NE(r.run("aten::neg.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
