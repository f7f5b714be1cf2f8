// Tests for aten::pow (three overloads), maximum, minimum and atan2.
// Expected values were computed with PyTorch eager (CPU) from the same inputs.
#include <cmath>
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor pow_base() { return make_tensor<float>({2, 3}, {1.5f, -2.0f, 0.25f, 4.0f, 0.0f, 3.0f}); }

TEST(OpPowTest, TensorTensorFloatBroadcast) {
  KernelRunner r;
  auto a = pow_base();
  auto e = make_tensor<float>({3}, {2.0f, 3.0f, -0.5f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::pow.Tensor_Tensor_out", {r.tensor(a), r.tensor(e), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {2.25f, -8.0f, 2.0f, 16.0f, 0.0f, 0.5773502588272095f});
}

TEST(OpPowTest, TensorTensorIntegerNegativeExponents) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({6}, {2, -3, 5, 1, -1, 7});
  auto e = make_tensor<int64_t>({6}, {10, 3, 0, -2, -3, -1});
  auto out = zeros_tensor(ScalarType::Long, {6});
  ASSERT_EQ(r.run("aten::pow.Tensor_Tensor_out", {r.tensor(a), r.tensor(e), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1024, -27, 1, 1, -1, 0}));
}

TEST(OpPowTest, Int8OverflowWraps) {
  KernelRunner r;
  auto a = make_tensor<int8_t>({1}, {3});
  auto e = make_tensor<int8_t>({1}, {5});
  auto out = zeros_tensor(ScalarType::Char, {1});
  ASSERT_EQ(r.run("aten::pow.Tensor_Tensor_out", {r.tensor(a), r.tensor(e), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{-13}));
}

TEST(OpPowTest, TensorScalar) {
  KernelRunner r;
  auto a = pow_base();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::pow.Tensor_Scalar_out", {r.tensor(a), r.d(0.5), r.tensor(out)}),
            Error::Ok);
  expect_close_special(out.values<float>(),
                       {1.2247449159622192f, NAN, 0.5f, 2.0f, 0.0f, 1.7320507764816284f});
  auto i = make_tensor<int32_t>({3}, {1, 4, -9});
  auto iout = zeros_tensor(ScalarType::Int, {3});
  ASSERT_EQ(r.run("aten::pow.Tensor_Scalar_out", {r.tensor(i), r.i(3), r.tensor(iout)}), Error::Ok);
  EXPECT_EQ(iout.values<int32_t>(), (std::vector<int32_t>{1, 64, -729}));
}

TEST(OpPowTest, IntegerTensorFloatExponentPromotes) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({3}, {1, 4, 9});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::pow.Tensor_Scalar_out", {r.tensor(a), r.d(0.5), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {1.0f, 2.0f, 3.0f});
}

TEST(OpPowTest, IntegerToNegativeScalarPowerFails) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({1}, {2});
  auto out = zeros_tensor(ScalarType::Long, {1});
  EXPECT_EQ(r.run("aten::pow.Tensor_Scalar_out", {r.tensor(a), r.i(-1), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPowTest, ScalarBase) {
  KernelRunner r;
  auto e = make_tensor<float>({3}, {0.5f, -1.0f, 3.0f});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::pow.Scalar_out", {r.d(2.0), r.tensor(e), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.4142135381698608f, 0.5f, 8.0f});
  auto ie = make_tensor<int64_t>({3}, {0, 2, 4});
  auto iout = zeros_tensor(ScalarType::Long, {3});
  ASSERT_EQ(r.run("aten::pow.Scalar_out", {r.i(3), r.tensor(ie), r.tensor(iout)}), Error::Ok);
  EXPECT_EQ(iout.values<int64_t>(), (std::vector<int64_t>{1, 9, 81}));
}

TEST(OpMaximumTest, PropagatesNanAndBroadcasts) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, {1.0f, NAN, -3.0f, 4.0f, 5.0f, -6.0f});
  auto b = make_tensor<float>({3}, {2.0f, 0.0f, -7.0f});
  auto mx = zeros_tensor(ScalarType::Float, {2, 3});
  auto mn = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::maximum.out", {r.tensor(a), r.tensor(b), r.tensor(mx)}), Error::Ok);
  ASSERT_EQ(r.run("aten::minimum.out", {r.tensor(a), r.tensor(b), r.tensor(mn)}), Error::Ok);
  expect_close_special(mx.values<float>(), {2.0f, NAN, -3.0f, 4.0f, 5.0f, -6.0f});
  expect_close_special(mn.values<float>(), {1.0f, NAN, -7.0f, 2.0f, 0.0f, -7.0f});
}

TEST(OpMaximumTest, MixedIntAndFloatPromote) {
  KernelRunner r;
  auto a = make_tensor<int32_t>({3}, {1, 5, -3});
  auto b = make_tensor<float>({3}, {2.5f, 0.5f, -3.5f});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::maximum.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {2.5f, 5.0f, -3.0f});
}

TEST(OpMaximumTest, IncompatibleShapesFail) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = make_tensor<float>({2}, {1, 2});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::minimum.out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpAtan2Test, FloatAndIntInputs) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 2}, {1.0f, -1.0f, 0.0f, 3.0f});
  auto b = make_tensor<float>({2}, {2.0f, -0.5f});
  auto out = zeros_tensor(ScalarType::Float, {2, 2});
  ASSERT_EQ(r.run("aten::atan2.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(),
               {0.46364760398864746f, -2.0344438552856445f, 0.0f, 1.7359449863433838f});
  auto ia = make_tensor<int64_t>({2}, {1, -2});
  auto ib = make_tensor<int64_t>({2}, {3, 4});
  auto iout = zeros_tensor(ScalarType::Float, {2});
  ASSERT_EQ(r.run("aten::atan2.out", {r.tensor(ia), r.tensor(ib), r.tensor(iout)}), Error::Ok);
  expect_close(iout.values<float>(), {0.32175055146217346f, -0.46364760398864746f});
}

}  // namespace
}  // namespace testing
}  // namespace etr
