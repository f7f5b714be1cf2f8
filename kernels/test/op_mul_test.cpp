// Tests for aten::mul.out and aten::mul.Scalar_out. Expected values were
// computed with PyTorch eager (CPU) from the same inputs.
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpMulTest, FloatTimesIntBroadcastPromotesToFloat) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, {0.5f, -1.25f, 2.0f, 3.5f, 0.0f, -4.75f});
  auto b = make_tensor<int32_t>({3}, {2, -1, 3});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::mul.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.0f, 1.25f, 6.0f, 7.0f, -0.0f, -14.25f});
}

TEST(OpMulTest, Int8WrapsAndBoolIsLogicalAnd) {
  KernelRunner r;
  auto a = make_tensor<int8_t>({2}, {100, -100});
  auto b = make_tensor<int8_t>({2}, {3, 3});
  auto out = zeros_tensor(ScalarType::Char, {2});
  ASSERT_EQ(r.run("aten::mul.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{44, -44}));
  auto x = make_bool({3}, {1, 0, 1});
  auto y = make_bool({3}, {1, 1, 0});
  auto bout = static_out(ScalarType::Bool, {3});
  ASSERT_EQ(r.run("aten::mul.out", {r.tensor(x), r.tensor(y), r.tensor(bout)}), Error::Ok);
  EXPECT_EQ(bool_values(bout), (std::vector<int>{1, 0, 0}));
}

TEST(OpMulTest, ScalarPromotesLongToFloat) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({2, 3}, {1, -2, 3, 40, 50, -60});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::mul.Scalar_out", {r.tensor(a), r.d(2.5), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {2.5f, -5.0f, 7.5f, 100.0f, 125.0f, -150.0f});
}

TEST(OpMulTest, DynamicOutShrinksToBroadcastShape) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 1}, {2.0f, 3.0f});
  auto b = make_tensor<float>({1, 2}, {4.0f, 5.0f});
  auto out = zeros_tensor(ScalarType::Float, {4, 4});  // bounded dynamic, 16 elements
  ASSERT_EQ(r.run("aten::mul.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2}));
  expect_close(out.values<float>(), {8.0f, 10.0f, 12.0f, 15.0f});
}

TEST(OpMulTest, ErrorsAreReported) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::mul.out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
  auto lout = zeros_tensor(ScalarType::Long, {2, 3});
  EXPECT_EQ(r.run("aten::mul.Scalar_out", {r.tensor(a), r.i(2), r.tensor(lout)}),
            Error::InvalidType);                       // Float result can't be cast to Long
  auto big = zeros_tensor(ScalarType::Float, {2, 2});  // capacity 4 < 6 elements
  EXPECT_NE(r.run("aten::mul.out", {r.tensor(a), r.tensor(a), r.tensor(big)}), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
