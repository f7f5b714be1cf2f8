// Tests for full, full_like, zeros, ones, scalar_tensor and fill.Scalar.
// Expected values follow PyTorch eager (e.g. torch.full((2, 3), 2.5,
// dtype=torch.int64) is all 2).
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpFullTest, FloatValueTruncatesIntoLong) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Long, {4, 4});
  ASSERT_EQ(r.run("aten::full.out", {r.int_list({2, 3}), r.d(2.5), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>(6, 2)));
}

TEST(OpFullTest, BoolOutAndWrongRank) {
  KernelRunner r;
  auto b = static_out(ScalarType::Bool, {2});
  ASSERT_EQ(r.run("aten::full.out", {r.int_list({2}), r.i(2), r.tensor(b)}), Error::Ok);
  EXPECT_EQ(bool_values(b), (std::vector<int>{1, 1}));
  auto f = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::full.out", {r.int_list({6}), r.d(1.0), r.tensor(f)}),
            Error::InvalidArgument);
  auto small = static_out(ScalarType::Float, {2, 2});
  EXPECT_NE(r.run("aten::full.out", {r.int_list({2, 3}), r.d(1.0), r.tensor(small)}), Error::Ok);
}

TEST(OpFullLikeTest, TakesShapeFromSelf) {
  KernelRunner r;
  auto self = make_tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  auto out = zeros_tensor(ScalarType::Float, {2, 2});
  ASSERT_EQ(r.run("aten::full_like.out", {r.tensor(self), r.d(-1.5), r.none(), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {-1.5f, -1.5f, -1.5f, -1.5f});
}

TEST(OpZerosOnesTest, FillAndResize) {
  KernelRunner r;
  auto z = make_tensor<float>({3}, {5, 6, 7});
  auto o = zeros_tensor(ScalarType::Int, {3, 2});
  ASSERT_EQ(r.run("aten::zeros.out", {r.int_list({3}), r.tensor(z)}), Error::Ok);
  ASSERT_EQ(r.run("aten::ones.out", {r.int_list({2, 2}), r.tensor(o)}), Error::Ok);
  expect_close(z.values<float>(), {0, 0, 0});
  EXPECT_EQ(o.values<int32_t>(), (std::vector<int32_t>{1, 1, 1, 1}));
}

TEST(OpScalarTensorTest, ZeroDimOut) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Double, {});
  ASSERT_EQ(r.run("aten::scalar_tensor.out", {r.d(0.25), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<double>(), (std::vector<double>{0.25}));
  auto bad = zeros_tensor(ScalarType::Double, {1});
  EXPECT_EQ(r.run("aten::scalar_tensor.out", {r.d(0.25), r.tensor(bad)}), Error::InvalidArgument);
}

TEST(OpFillTest, ScalarOut) {
  KernelRunner r;
  auto self = make_tensor<uint8_t>({3}, {1, 2, 3});
  auto out = zeros_tensor(ScalarType::Byte, {3});
  ASSERT_EQ(r.run("aten::fill.Scalar_out", {r.tensor(self), r.i(7), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<uint8_t>(), (std::vector<uint8_t>{7, 7, 7}));
  // torch.fill(uint8 tensor, 7, out=float16 tensor) raises: out must match self.
  auto half = zeros_tensor(ScalarType::Half, {3});
  EXPECT_NE(r.run("aten::fill.Scalar_out", {r.tensor(self), r.i(7), r.tensor(half)}), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
