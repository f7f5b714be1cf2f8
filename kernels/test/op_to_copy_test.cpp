// Tests for aten::_to_copy.out and dim_order_ops::_to_dim_order_copy.out.
// Expected values were computed with Tensor.to(dtype) in PyTorch eager (CPU,
// x86) from the same inputs.
#include <cmath>
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TestTensor floats() {
  return TestTensor::make<float>({2, 3}, {-1.0f, 300.0f, -129.0f, 2.7f, -2.7f, NAN});
}

TEST(OpToCopyTest, FloatToIntegersWrapLikePyTorch) {
  KernelRunner r;
  auto x = floats();
  auto u8 = TestTensor::zeros(ScalarType::Byte, {2, 3});
  auto i8 = TestTensor::zeros(ScalarType::Char, {2, 3});
  auto i32 = TestTensor::zeros(ScalarType::Int, {2, 3});
  auto b = static_out(ScalarType::Bool, {2, 3});
  for (TestTensor* out : {&u8, &i8, &i32, &b}) {
    ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.none(), r.tensor(*out)}),
              Error::Ok);
  }
  EXPECT_EQ(u8.values<uint8_t>(), (std::vector<uint8_t>{255, 44, 127, 2, 254, 0}));
  EXPECT_EQ(i8.values<int8_t>(), (std::vector<int8_t>{-1, 44, 127, 2, -2, 0}));
  EXPECT_EQ(i32.values<int32_t>(), (std::vector<int32_t>{-1, 300, -129, 2, -2, INT32_MIN}));
  EXPECT_EQ(bool_values(b), (std::vector<int>{1, 1, 1, 1, 1, 1}));
}

TEST(OpToCopyTest, WideningAndNarrowingFloats) {
  KernelRunner r;
  auto l = TestTensor::make<int64_t>({3}, {1, -2, int64_t{1} << 40});
  auto f = TestTensor::zeros(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(l), r.b(false), r.none(), r.tensor(f)}),
            Error::Ok);
  expect_close(f.values<float>(), {1.0f, -2.0f, 1099511627776.0f});
  auto big = TestTensor::make<double>({3}, {1e300, -1e300, 3.5e38});
  auto fb = TestTensor::zeros(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(big), r.b(false), r.none(), r.tensor(fb)}),
            Error::Ok);
  expect_close_special(fb.values<float>(), {INFINITY, -INFINITY, INFINITY});
}

TEST(OpToCopyTest, ShapeMismatchFails) {
  KernelRunner r;
  auto x = floats();
  auto out = static_out(ScalarType::Int, {3, 2});
  EXPECT_NE(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  auto out2 = TestTensor::zeros(ScalarType::Int, {2, 3});
  EXPECT_EQ(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.i(7), r.tensor(out2)}),
            Error::InvalidArgument);
}

TEST(OpToDimOrderCopyTest, CastsLongToFloat) {
  KernelRunner r;
  auto x = TestTensor::make<int64_t>({2, 3}, {3, -4, 5, 6, 7, -8});
  auto out = TestTensor::zeros(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 1}), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {3.0f, -4.0f, 5.0f, 6.0f, 7.0f, -8.0f});
}

TEST(OpToDimOrderCopyTest, WritesChannelsLastOut) {
  KernelRunner r;
  // NCHW [1, 2, 2, 2] -> NHWC memory (dim order 0, 2, 3, 1).
  auto x = TestTensor::make<float>({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto out = TestTensor::make<float>({1, 2, 2, 2}, std::vector<float>(8, 0.0f), {0, 2, 3, 1});
  ASSERT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(out)}),
            Error::Ok);
  // Memory of x.to(memory_format=torch.channels_last).
  expect_close(out.values<float>(), {0, 4, 1, 5, 2, 6, 3, 7});
}

TEST(OpToDimOrderCopyTest, MismatchedDimOrderFails) {
  KernelRunner r;
  auto x = TestTensor::make<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = TestTensor::zeros(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({1, 0}), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
