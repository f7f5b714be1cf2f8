// Tests for aten::add / sub / rsub. Expected values were computed with
// PyTorch eager (CPU) from the same inputs.
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor float_a() {
  return make_tensor<float>({2, 3}, {0.5f, -1.25f, 2.0f, 3.5f, 0.0f, -4.75f});
}
HostTensor float_b() { return make_tensor<float>({3}, {1.0f, 2.5f, -0.5f}); }
HostTensor long_a() { return make_tensor<int64_t>({2, 3}, {1, -2, 3, 40, 50, -60}); }

TEST(OpAddTest, BroadcastsRowAgainstMatrix) {
  KernelRunner r;
  auto a = float_a();
  auto b = float_b();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
  // torch.add(a, b)
  expect_close(out.values<float>(), {1.5f, 1.25f, 1.5f, 4.5f, 2.5f, -5.25f});
}

TEST(OpAddTest, AppliesAlpha) {
  KernelRunner r;
  auto a = float_a();
  auto b = float_b();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(2), r.tensor(out)}), Error::Ok);
  // torch.add(a, b, alpha=2)
  expect_close(out.values<float>(), {2.5f, 3.75f, 1.0f, 5.5f, 5.0f, -5.75f});
}

TEST(OpAddTest, PromotesLongAndIntWithBroadcastColumn) {
  KernelRunner r;
  auto a = long_a();
  auto b = make_tensor<int32_t>({2, 1}, {7, -8});
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(3), r.tensor(out)}), Error::Ok);
  // torch.add(int64 a, int32 b, alpha=3) -> int64
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{22, 19, 24, 16, 26, -84}));
}

TEST(OpAddTest, ByteAndCharPromoteToShort) {
  KernelRunner r;
  auto a = make_tensor<uint8_t>({2}, {200, 10});
  auto b = make_tensor<int8_t>({2}, {100, -20});
  auto out = zeros_tensor(ScalarType::Short, {2});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int16_t>(), (std::vector<int16_t>{300, -10}));  // PyTorch: int16
}

TEST(OpAddTest, ZeroDimTensorDoesNotWidenDimensionedInt) {
  KernelRunner r;
  auto a = make_tensor<int32_t>({3}, {1, 2, 3});
  auto b = make_tensor<int64_t>({}, {int64_t{1} << 31});
  auto out = zeros_tensor(ScalarType::Int, {3});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
  // PyTorch computes in int32 (the 0-d int64 has lower priority) and wraps.
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{-2147483647, -2147483646, -2147483645}));
}

TEST(OpAddTest, IntOverflowWraps) {
  KernelRunner r;
  auto a = make_tensor<int32_t>({2}, {2147483647, -2147483647 - 1});
  auto b = make_tensor<int32_t>({2}, {1, -1});
  auto out = zeros_tensor(ScalarType::Int, {2});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{-2147483647 - 1, 2147483647}));
}

TEST(OpAddTest, BoolAddIsLogicalOr) {
  KernelRunner r;
  auto a = make_bool({3}, {1, 0, 0});
  auto b = make_bool({3}, {1, 1, 0});
  auto out = static_out(ScalarType::Bool, {3});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), (std::vector<int>{1, 1, 0}));
}

TEST(OpAddTest, NonDefaultDimOrderInputs) {
  KernelRunner r;
  // a = [[0.5, -1.25, 2.0], [3.5, 0.0, -4.75]] stored column-major (dim order 1, 0).
  auto a = make_tensor<float>({2, 3}, {0.5f, 3.5f, -1.25f, 0.0f, 2.0f, -4.75f}, {1, 0});
  auto b = float_b();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.5f, 1.25f, 1.5f, 4.5f, 2.5f, -5.25f});
}

TEST(OpAddTest, ScalarPromotesLongToFloat) {
  KernelRunner r;
  auto a = long_a();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::add.Scalar_out", {r.tensor(a), r.d(2.5), r.i(1), r.tensor(out)}),
            Error::Ok);
  // torch.add(int64 a, 2.5) -> float32
  expect_close(out.values<float>(), {3.5f, 0.5f, 5.5f, 42.5f, 52.5f, -57.5f});
}

TEST(OpAddTest, ScalarIntoLongOutIsRejected) {
  KernelRunner r;
  auto a = long_a();
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  // PyTorch: result type Float can't be cast to the desired output type Long.
  EXPECT_EQ(r.run("aten::add.Scalar_out", {r.tensor(a), r.d(2.5), r.i(1), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpAddTest, FloatAlphaWithIntegralInputsIsRejected) {
  KernelRunner r;
  auto a = long_a();
  auto b = long_a();
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  EXPECT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.d(0.5), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpAddTest, IncompatibleShapesFail) {
  KernelRunner r;
  auto a = float_a();
  auto b = make_tensor<float>({4}, {1, 2, 3, 4});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpAddTest, StaticOutOfWrongShapeFails) {
  KernelRunner r;
  auto a = float_a();
  auto b = float_b();
  auto out = static_out(ScalarType::Float, {2, 2});
  EXPECT_NE(r.run("aten::add.out", {r.tensor(a), r.tensor(b), r.i(1), r.tensor(out)}), Error::Ok);
}

TEST(OpSubTest, AppliesAlphaWithBroadcast) {
  KernelRunner r;
  auto a = float_a();
  auto b = float_b();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::sub.out", {r.tensor(a), r.tensor(b), r.d(1.5), r.tensor(out)}), Error::Ok);
  // torch.sub(a, b, alpha=1.5)
  expect_close(out.values<float>(), {-1.0f, -5.0f, 2.75f, 2.0f, -3.75f, -4.0f});
}

TEST(OpSubTest, ScalarWithAlpha) {
  KernelRunner r;
  auto a = long_a();
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  ASSERT_EQ(r.run("aten::sub.Scalar_out", {r.tensor(a), r.i(2), r.i(3), r.tensor(out)}), Error::Ok);
  // torch.sub(a, 2, alpha=3)
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{-5, -8, -3, 34, 44, -66}));
}

TEST(OpSubTest, BoolInputsAreRejected) {
  KernelRunner r;
  auto a = make_bool({2}, {1, 0});
  auto out = static_out(ScalarType::Bool, {2});
  EXPECT_EQ(r.run("aten::sub.out", {r.tensor(a), r.tensor(a), r.i(1), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpRsubTest, ScalarMinusAlphaTimesSelf) {
  KernelRunner r;
  auto a = float_a();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::rsub.Scalar_out", {r.tensor(a), r.d(3.5), r.i(2), r.tensor(out)}),
            Error::Ok);
  // torch.rsub(a, 3.5, alpha=2)
  expect_close(out.values<float>(), {2.5f, 6.0f, -0.5f, -3.5f, 3.5f, 13.0f});
}

}  // namespace
}  // namespace testing
}  // namespace etr
