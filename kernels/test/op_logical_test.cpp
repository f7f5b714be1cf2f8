// Tests for logical_and/or/xor, bitwise_and/or/xor, where and masked_fill.
// Expected values were computed with PyTorch eager (CPU) from the same inputs.
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpLogicalTest, MixedFloatAndLongBroadcast) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, {0.0f, 1.5f, -2.0f, 0.0f, 0.0f, 3.0f});
  auto y = make_tensor<int64_t>({3}, {1, 0, 2});
  auto land = static_out(ScalarType::Bool, {2, 3});
  auto lor = static_out(ScalarType::Bool, {2, 3});
  auto lxor = static_out(ScalarType::Bool, {2, 3});
  ASSERT_EQ(r.run("aten::logical_and.out", {r.tensor(x), r.tensor(y), r.tensor(land)}), Error::Ok);
  ASSERT_EQ(r.run("aten::logical_or.out", {r.tensor(x), r.tensor(y), r.tensor(lor)}), Error::Ok);
  ASSERT_EQ(r.run("aten::logical_xor.out", {r.tensor(x), r.tensor(y), r.tensor(lxor)}), Error::Ok);
  EXPECT_EQ(bool_values(land), (std::vector<int>{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(bool_values(lor), (std::vector<int>{1, 1, 1, 1, 0, 1}));
  EXPECT_EQ(bool_values(lxor), (std::vector<int>{1, 1, 0, 1, 0, 0}));
}

TEST(OpLogicalTest, ShapeMismatchFails) {
  KernelRunner r;
  auto x = make_bool({2, 3}, {1, 0, 1, 0, 1, 0});
  auto y = make_bool({2}, {1, 0});
  auto out = static_out(ScalarType::Bool, {2, 3});
  EXPECT_EQ(r.run("aten::logical_and.out", {r.tensor(x), r.tensor(y), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpBitwiseTest, TensorOverloadsPromoteIntToLong) {
  KernelRunner r;
  auto p = make_tensor<int64_t>({2, 3}, {12, -7, 5, 0, 255, -1});
  auto q = make_tensor<int32_t>({3}, {10, 3, -4});
  auto band = zeros_tensor(ScalarType::Long, {2, 3});
  auto bor = zeros_tensor(ScalarType::Long, {2, 3});
  auto bxor = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::bitwise_and.Tensor_out", {r.tensor(p), r.tensor(q), r.tensor(band)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::bitwise_or.Tensor_out", {r.tensor(p), r.tensor(q), r.tensor(bor)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::bitwise_xor.Tensor_out", {r.tensor(p), r.tensor(q), r.tensor(bxor)}),
            Error::Ok);
  EXPECT_EQ(band.values<int64_t>(), (std::vector<int64_t>{8, 1, 4, 0, 3, -4}));
  EXPECT_EQ(bor.values<int64_t>(), (std::vector<int64_t>{14, -5, -3, 10, 255, -1}));
  EXPECT_EQ(bxor.values<int64_t>(), (std::vector<int64_t>{6, -6, -7, 10, 252, 3}));
}

TEST(OpBitwiseTest, ScalarOverloads) {
  KernelRunner r;
  auto p = make_tensor<int64_t>({2, 3}, {12, -7, 5, 0, 255, -1});
  auto band = zeros_tensor(ScalarType::Long, {2, 3});
  auto bor = zeros_tensor(ScalarType::Long, {2, 3});
  auto bxor = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::bitwise_and.Scalar_out", {r.tensor(p), r.i(5), r.tensor(band)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::bitwise_or.Scalar_out", {r.tensor(p), r.i(5), r.tensor(bor)}), Error::Ok);
  ASSERT_EQ(r.run("aten::bitwise_xor.Scalar_out", {r.tensor(p), r.i(5), r.tensor(bxor)}),
            Error::Ok);
  EXPECT_EQ(band.values<int64_t>(), (std::vector<int64_t>{4, 1, 5, 0, 5, 5}));
  EXPECT_EQ(bor.values<int64_t>(), (std::vector<int64_t>{13, -3, 5, 5, 255, -1}));
  EXPECT_EQ(bxor.values<int64_t>(), (std::vector<int64_t>{9, -4, 0, 5, 250, -6}));
}

TEST(OpBitwiseTest, BoolAndByteCharPromotion) {
  KernelRunner r;
  auto a = make_bool({3}, {1, 1, 0});
  auto b = make_bool({3}, {1, 0, 0});
  auto out = static_out(ScalarType::Bool, {3});
  ASSERT_EQ(r.run("aten::bitwise_and.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(bool_values(out), (std::vector<int>{1, 0, 0}));
  auto u = make_tensor<uint8_t>({2}, {255, 15});
  auto s = make_tensor<int8_t>({2}, {-1, 7});
  auto out16 = zeros_tensor(ScalarType::Short, {2});
  ASSERT_EQ(r.run("aten::bitwise_and.Tensor_out", {r.tensor(u), r.tensor(s), r.tensor(out16)}),
            Error::Ok);
  EXPECT_EQ(out16.values<int16_t>(), (std::vector<int16_t>{255, 7}));
}

TEST(OpBitwiseTest, FloatInputsAreRejected) {
  KernelRunner r;
  auto p = make_tensor<int64_t>({2}, {1, 3});
  auto out = zeros_tensor(ScalarType::Long, {2});
  EXPECT_EQ(r.run("aten::bitwise_and.Scalar_out", {r.tensor(p), r.d(2.0), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpWhereTest, BroadcastsAndPromotes) {
  KernelRunner r;
  auto c = make_bool({2, 3}, {1, 0, 1, 0, 1, 0});
  auto x = make_tensor<int64_t>({3}, {1, 2, 3});
  auto y = make_tensor<float>({2, 1}, {10.5f, 20.5f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::where.self_out", {r.tensor(c), r.tensor(x), r.tensor(y), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {1.0f, 10.5f, 3.0f, 20.5f, 2.0f, 20.5f});
}

TEST(OpWhereTest, ZeroDimOtherAndByteCondition) {
  KernelRunner r;
  auto c = make_tensor<uint8_t>({2, 3}, {1, 0, 1, 0, 1, 0});
  auto x = make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto y = make_tensor<int64_t>({}, {-1});
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::where.self_out", {r.tensor(c), r.tensor(x), r.tensor(y), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, -1, 3, -1, 5, -1}));
}

TEST(OpWhereTest, FloatConditionAndBadShapeFail) {
  KernelRunner r;
  auto fc = make_tensor<float>({3}, {1, 0, 1});
  auto x = make_tensor<float>({3}, {1, 2, 3});
  auto out = zeros_tensor(ScalarType::Float, {3});
  EXPECT_EQ(r.run("aten::where.self_out", {r.tensor(fc), r.tensor(x), r.tensor(x), r.tensor(out)}),
            Error::InvalidType);
  auto c = make_bool({2}, {1, 0});
  EXPECT_EQ(r.run("aten::where.self_out", {r.tensor(c), r.tensor(x), r.tensor(x), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpMaskedFillTest, BroadcastMask) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto m = make_bool({3}, {1, 0, 1});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(
      r.run("aten::masked_fill.Scalar_out", {r.tensor(x), r.tensor(m), r.d(-0.5), r.tensor(out)}),
      Error::Ok);
  expect_close(out.values<float>(), {-0.5f, 2.0f, -0.5f, -0.5f, 5.0f, -0.5f});
}

TEST(OpMaskedFillTest, MaskWiderThanSelf) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, {0, 0, 0});
  auto m = make_bool({2, 3}, {1, 0, 1, 0, 0, 1});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(
      r.run("aten::masked_fill.Scalar_out", {r.tensor(x), r.tensor(m), r.d(1.5), r.tensor(out)}),
      Error::Ok);
  expect_close(out.values<float>(), {1.5f, 0.0f, 1.5f, 0.0f, 0.0f, 1.5f});
}

TEST(OpMaskedFillTest, FloatValueTruncatesIntoIntTensor) {
  KernelRunner r;
  auto x = make_tensor<int32_t>({3}, {5, 6, 7});
  auto m = make_bool({3}, {1, 0, 1});
  auto out = zeros_tensor(ScalarType::Int, {3});
  ASSERT_EQ(
      r.run("aten::masked_fill.Scalar_out", {r.tensor(x), r.tensor(m), r.d(1.5), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 6, 1}));
}

TEST(OpMaskedFillTest, NonBoolMaskFails) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, {0, 0, 0});
  auto m = make_tensor<int64_t>({3}, {1, 0, 1});
  auto out = zeros_tensor(ScalarType::Float, {3});
  EXPECT_EQ(
      r.run("aten::masked_fill.Scalar_out", {r.tensor(x), r.tensor(m), r.d(1.5), r.tensor(out)}),
      Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
