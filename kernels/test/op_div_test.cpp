// Tests for aten::div (all overloads), floor_divide, remainder and fmod.
// Expected values were computed with PyTorch eager (CPU) from the same inputs.
#include <cmath>
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr float kInf = INFINITY;

HostTensor float_a() { return make_tensor<float>({2, 3}, {7.5f, -7.5f, 3.0f, -2.25f, 0.0f, 9.0f}); }
HostTensor long_a() { return make_tensor<int64_t>({2, 3}, {7, -7, 9, -9, 0, 5}); }
HostTensor int_b() { return make_tensor<int32_t>({3}, {2, -2, 4}); }

TEST(OpDivTest, FloatBroadcastWithZeroDivisor) {
  KernelRunner r;
  auto a = float_a();
  auto b = make_tensor<float>({3}, {2.0f, -2.0f, 0.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::div.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  expect_close_special(out.values<float>(), {3.75f, 3.75f, kInf, -1.125f, -0.0f, kInf});
}

TEST(OpDivTest, IntegersPromoteToFloat) {
  KernelRunner r;
  auto a = long_a();
  auto b = int_b();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::div.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {3.5f, 3.5f, 2.25f, -4.5f, -0.0f, 1.25f});
}

TEST(OpDivTest, TrueDivisionIntoLongOutIsRejected) {
  KernelRunner r;
  auto a = long_a();
  auto b = int_b();
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  EXPECT_EQ(r.run("aten::div.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::InvalidType);
}

TEST(OpDivTest, ScalarDivisor) {
  KernelRunner r;
  auto a = long_a();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::div.Scalar_out", {r.tensor(a), r.i(4), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.75f, -1.75f, 2.25f, -2.25f, 0.0f, 1.25f});
}

TEST(OpDivTest, RoundingModesOnFloats) {
  KernelRunner r;
  auto a = float_a();
  auto b = make_tensor<float>({3}, {2.0f, -2.0f, 0.0f});
  auto trunc = zeros_tensor(ScalarType::Float, {2, 3});
  auto floor = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(
      r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.str("trunc"), r.tensor(trunc)}),
      Error::Ok);
  ASSERT_EQ(
      r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.str("floor"), r.tensor(floor)}),
      Error::Ok);
  expect_close_special(trunc.values<float>(), {3.0f, 3.0f, kInf, -1.0f, -0.0f, kInf});
  expect_close_special(floor.values<float>(), {3.0f, 3.0f, kInf, -2.0f, -0.0f, kInf});
}

TEST(OpDivTest, RoundingModesOnMixedIntegers) {
  KernelRunner r;
  auto a = long_a();
  auto b = int_b();
  auto trunc = zeros_tensor(ScalarType::Long, {2, 3});
  auto floor = zeros_tensor(ScalarType::Long, {2, 3});
  auto none = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(
      r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.str("trunc"), r.tensor(trunc)}),
      Error::Ok);
  ASSERT_EQ(
      r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.str("floor"), r.tensor(floor)}),
      Error::Ok);
  ASSERT_EQ(r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.none(), r.tensor(none)}),
            Error::Ok);
  EXPECT_EQ(trunc.values<int64_t>(), (std::vector<int64_t>{3, 3, 2, -4, 0, 1}));
  EXPECT_EQ(floor.values<int64_t>(), (std::vector<int64_t>{3, 3, 2, -5, 0, 1}));
  expect_close(none.values<float>(), {3.5f, 3.5f, 2.25f, -4.5f, -0.0f, 1.25f});
}

TEST(OpDivTest, FloorOfMostNegativeByMinusOneWraps) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({2}, {INT64_MIN, 5});
  auto b = make_tensor<int64_t>({2}, {-1, -1});
  auto out = zeros_tensor(ScalarType::Long, {2});
  ASSERT_EQ(r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.str("floor"), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{INT64_MIN, -5}));
}

TEST(OpDivTest, IntegerDivisionByZeroFails) {
  KernelRunner r;
  auto a = long_a();
  auto b = make_tensor<int32_t>({3}, {2, 0, 4});
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  EXPECT_EQ(r.run("aten::div.out_mode", {r.tensor(a), r.tensor(b), r.str("trunc"), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::remainder.Scalar_out", {r.tensor(a), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpDivTest, UnknownRoundingModeFails) {
  KernelRunner r;
  auto a = float_a();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::div.out_mode", {r.tensor(a), r.tensor(a), r.str("round"), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpFloorDivideTest, MixedIntegerSigns) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({2, 3}, {-17, 5, 12, 3, -4, 19});
  auto b = make_tensor<int32_t>({2, 3}, {3, -2, 5, -4, 1, 2});
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::floor_divide.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{-6, -3, 2, -1, -4, 9}));
}

TEST(OpRemainderTest, IntegerSignFollowsDivisor) {
  KernelRunner r;
  auto a = long_a();
  auto b = int_b();
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::remainder.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, -1, 1, 1, 0, 1}));
}

TEST(OpRemainderTest, FloatSignFollowsDivisor) {
  KernelRunner r;
  auto a = float_a();
  auto b = make_tensor<float>({3}, {2.0f, -2.0f, 4.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::remainder.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {1.5f, -1.5f, 3.0f, 1.75f, 0.0f, 1.0f});
}

TEST(OpRemainderTest, ScalarOverloads) {
  KernelRunner r;
  auto a = long_a();
  auto pos = zeros_tensor(ScalarType::Long, {2, 3});
  auto neg = zeros_tensor(ScalarType::Long, {2, 3});
  auto flt = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::remainder.Scalar_out", {r.tensor(a), r.i(3), r.tensor(pos)}), Error::Ok);
  ASSERT_EQ(r.run("aten::remainder.Scalar_out", {r.tensor(a), r.i(-3), r.tensor(neg)}), Error::Ok);
  ASSERT_EQ(r.run("aten::remainder.Scalar_out", {r.tensor(a), r.d(2.5), r.tensor(flt)}), Error::Ok);
  EXPECT_EQ(pos.values<int64_t>(), (std::vector<int64_t>{1, 2, 0, 0, 0, 2}));
  EXPECT_EQ(neg.values<int64_t>(), (std::vector<int64_t>{-2, -1, 0, 0, 0, -1}));
  expect_close(flt.values<float>(), {2.0f, 0.5f, 1.5f, 1.0f, 0.0f, 0.0f});
}

TEST(OpFmodTest, SignFollowsDividend) {
  KernelRunner r;
  auto a = long_a();
  auto b = int_b();
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::fmod.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, -1, 1, -1, 0, 1}));

  auto fa = float_a();
  auto fb = make_tensor<float>({3}, {2.0f, -2.0f, 4.0f});
  auto fout = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::fmod.Tensor_out", {r.tensor(fa), r.tensor(fb), r.tensor(fout)}),
            Error::Ok);
  expect_close(fout.values<float>(), {1.5f, -1.5f, 3.0f, -0.25f, 0.0f, 1.0f});
}

TEST(OpFmodTest, ScalarDivisor) {
  KernelRunner r;
  auto a = float_a();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::fmod.Scalar_out", {r.tensor(a), r.d(-2.5), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {0.0f, -0.0f, 0.5f, -2.25f, 0.0f, 1.5f});
}

TEST(OpFmodTest, BoolInputsAreRejected) {
  KernelRunner r;
  auto a = make_bool({2}, {1, 1});
  auto out = static_out(ScalarType::Bool, {2});
  EXPECT_EQ(r.run("aten::fmod.Tensor_out", {r.tensor(a), r.tensor(a), r.tensor(out)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
