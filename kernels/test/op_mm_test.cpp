// Tests for aten::mm.out, bmm.out, addmm.out, linear.out. Expected values
// were computed with PyTorch eager (torch 2.x, CPU) from the same input
// patterns; every value is a multiple of 1/16, so float results are exact.
#include <cmath>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

// ((i * mul) % mod - mod / 2) * 0.25, as in the generating Python script.
template <typename T = float>
std::vector<T> pat(size_t n, int mul = 37, int mod = 17) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>((static_cast<int>(i) * mul % mod - mod / 2) * 0.25);
  }
  return v;
}

TEST(OpMmTest, Basic) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({3, 4}, pat(12, 13, 11));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  // PyTorch eager: a @ b
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.5625f, -0.3125f, 1.25f, 0.75f, 0.4375f,
                                                     1.9375f, 0.6875f, -2.625f}));
}

TEST(OpMmTest, LargerOddSizes) {
  KernelRunner r;
  auto a = make_tensor<float>({17, 33}, pat(17 * 33, 29, 23));
  auto b = make_tensor<float>({33, 9}, pat(33 * 9, 31, 19));
  auto out = zeros_tensor(ScalarType::Float, {17, 9});
  ASSERT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{17, 9}));
  // PyTorch eager: A @ B
  const std::vector<float> expected = {
      -9.4375f, 9.375f,   -1.5f,     9.0f,     2.875f,    -5.625f,   7.25f,     3.5f,     -2.625f,
      -2.625f,  3.5f,     7.25f,     -5.625f,  2.875f,    9.0f,      -1.5f,     9.375f,   -9.4375f,
      -1.5625f, 4.8125f,  8.8125f,   -14.5f,   21.5625f,  -26.6875f, 7.0f,      -9.1875f, -0.4375f,
      -20.625f, 10.4375f, -15.5f,    2.5f,     -18.6875f, 12.375f,   -21.875f,  13.9375f, -7.25f,
      -0.875f,  -17.0f,   19.125f,   -20.75f,  20.125f,   4.0f,      -6.1875f,  9.75f,    -4.0f,
      3.0625f,  4.4375f,  3.4375f,   -2.3125f, 1.4375f,   2.8125f,   -0.5625f,  5.5625f,  9.3125f,
      -5.9375f, -7.1875f, 16.5f,     -2.5625f, -1.4375f,  24.625f,   -19.375f,  11.4375f, -14.75f,
      9.5f,     -1.5625f, 12.3125f,  -27.25f,  18.6875f,  -19.6875f, -2.25f,    -8.5625f, 10.0625f,
      -13.875f, -0.25f,   -16.3125f, 12.75f,   -25.875f,  15.0625f,  -8.125f,   10.25f,   -1.0625f,
      11.625f,  -11.875f, 16.875f,   -1.875f,  4.3125f,   8.125f,    -8.25f,    0.3125f,  6.5f,
      8.375f,   -7.6875f, 1.1875f,   6.5f,     -7.1875f,  4.0625f,   11.75f,    0.4375f,  14.0625f,
      3.6875f,  -4.9375f, 11.375f,   13.4375f, -20.125f,  25.875f,   -24.3125f, -0.875f,  -7.125f,
      13.375f,  -15.125f, 8.625f,    -19.875f, 8.625f,    -19.875f,  8.625f,    -15.125f, 13.375f,
      -7.125f,  -0.875f,  -24.3125f, 25.875f,  -20.125f,  13.4375f,  11.375f,   -4.9375f, 3.6875f,
      14.0625f, 0.4375f,  11.75f,    4.0625f,  -7.1875f,  6.5f,      1.1875f,   -7.6875f, 8.375f,
      6.5f,     0.3125f,  -8.25f,    8.125f,   4.3125f,   -1.875f,   16.875f,   -11.875f, 11.625f,
      -1.0625f, 10.25f,   -8.125f,   15.0625f, -25.875f,  12.75f,    -16.3125f, -0.25f,   -13.875f};
  EXPECT_EQ(out.values<float>(), expected);
}

TEST(OpMmTest, Double) {
  KernelRunner r;
  auto a = make_tensor<double>({2, 3}, pat<double>(6));
  auto b = make_tensor<double>({3, 4}, pat<double>(12, 13, 11));
  auto out = zeros_tensor(ScalarType::Double, {2, 4});
  ASSERT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  // PyTorch eager: a.double() @ b.double()
  EXPECT_EQ(out.values<double>(),
            (std::vector<double>{1.5625, -0.3125, 1.25, 0.75, 0.4375, 1.9375, 0.6875, -2.625}));
}

TEST(OpMmTest, InnerDimMismatchFails) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({4, 5}, pat(20));
  auto out = zeros_tensor(ScalarType::Float, {2, 5});
  EXPECT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
}

// Bool products are refused (PyTorch refuses them too); integer ones run
// (kernels/test/op_conformance_fixes_test.cpp).
TEST(OpMmTest, BoolDtypeRejected) {
  KernelRunner r;
  auto a = make_tensor<bool>({1, 1}, {true});
  auto b = make_tensor<bool>({1, 1}, {true});
  auto out = zeros_tensor(ScalarType::Bool, {1, 1});
  EXPECT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::InvalidType);
}

TEST(OpMmTest, StaticOutWithWrongShapeFails) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({3, 4}, pat(12));
  auto out = zeros_tensor(ScalarType::Float, {2, 3}, ShapeDynamism::Static);
  EXPECT_NE(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
}

TEST(OpBmmTest, Basic) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 2, 3}, pat(12));
  auto b = make_tensor<float>({2, 3, 2}, pat(12, 13, 11));
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 2});
  ASSERT_EQ(r.run("aten::bmm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  // PyTorch eager: torch.bmm(a, b)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{2.4375f, 0.5625f, 0.75f, 2.25f, 1.5f, 0.6875f, 1.5f, -2.125f}));
}

TEST(OpBmmTest, BatchMismatchFails) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 2, 3}, pat(12));
  auto b = make_tensor<float>({3, 3, 2}, pat(18));
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 2});
  EXPECT_EQ(r.run("aten::bmm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpAddmmTest, RowBiasWithBetaAlpha) {
  KernelRunner r;
  auto bias = make_tensor<float>({4}, pat(4, 5, 7));
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({3, 4}, pat(12, 13, 11));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::addmm.out",
                  {r.tensor(bias), r.tensor(a), r.tensor(b), r.d(0.5), r.d(2.0), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: torch.addmm(bias, a, b, beta=0.5, alpha=2.0)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{2.75f, -0.375f, 2.5f, 1.25f, 0.5f, 4.125f, 1.375f, -5.5f}));
}

TEST(OpAddmmTest, ColumnBiasIntScalars) {
  KernelRunner r;
  auto bias = make_tensor<float>({2, 1}, pat(2, 3, 5));
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({3, 4}, pat(12, 13, 11));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::addmm.out",
                  {r.tensor(bias), r.tensor(a), r.tensor(b), r.i(1), r.i(1), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: torch.addmm(col, a, b)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.0625f, -0.8125f, 0.75f, 0.25f, 0.6875f,
                                                     2.1875f, 0.9375f, -2.375f}));
}

TEST(OpAddmmTest, BetaZeroIgnoresNanSelf) {
  KernelRunner r;
  auto bias = make_tensor<float>({2, 4}, std::vector<float>(8, std::nanf("")));
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({3, 4}, pat(12, 13, 11));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::addmm.out",
                  {r.tensor(bias), r.tensor(a), r.tensor(b), r.i(0), r.d(1.0), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: torch.addmm(nan_tensor, a, b, beta=0)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.5625f, -0.3125f, 1.25f, 0.75f, 0.4375f,
                                                     1.9375f, 0.6875f, -2.625f}));
}

TEST(OpAddmmTest, NonBroadcastableSelfFails) {
  KernelRunner r;
  auto bias = make_tensor<float>({3}, pat(3));
  auto a = make_tensor<float>({2, 3}, pat(6));
  auto b = make_tensor<float>({3, 4}, pat(12));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  EXPECT_EQ(r.run("aten::addmm.out",
                  {r.tensor(bias), r.tensor(a), r.tensor(b), r.i(1), r.i(1), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpLinearTest, BatchedWithBias) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 2, 3}, pat(12));
  auto w = make_tensor<float>({4, 3}, pat(12, 13, 11));
  auto bias = make_tensor<float>({4}, pat(4, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 4});
  ASSERT_EQ(r.run("aten::linear.out", {r.tensor(x), r.tensor(w), r.tensor(bias), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: F.linear(x, w, bias)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{2.8125f, -1.5625f, 2.625f, -2.125f, -2.25f, 3.5f, -0.75f, -1.5625f,
                                2.25f, -1.0f, 2.25f, -2.0625f, -2.8125f, 4.0625f, -1.125f, -1.5f}));
}

TEST(OpLinearTest, NoBias) {
  KernelRunner r;
  auto x = make_tensor<float>({5, 33}, pat(5 * 33, 29, 23));
  auto w = make_tensor<float>({7, 33}, pat(7 * 33, 31, 19));
  auto out = zeros_tensor(ScalarType::Float, {5, 7});
  ASSERT_EQ(r.run("aten::linear.out", {r.tensor(x), r.tensor(w), r.none(), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: F.linear(X, W)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{26.125f,   -0.25f,    -11.1875f, 23.0f,     -5.75f,    -23.8125f,
                                4.4375f,   -13.875f,  6.5625f,   4.4375f,   -23.8125f, -5.75f,
                                23.0f,     -11.1875f, 3.625f,    -21.125f,  2.8125f,   11.3125f,
                                -15.8125f, -4.9375f,  24.9375f,  -0.4375f,  25.9375f,  -18.9375f,
                                -13.9375f, 37.375f,   -9.875f,   -10.8125f, -16.0f,    -16.125f,
                                38.375f,   -10.4375f, -12.9375f, 22.5625f,  -4.875f}));
}

TEST(OpLinearTest, OneDimensionalInput) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, pat(3));
  auto w = make_tensor<float>({4, 3}, pat(12, 13, 11));
  auto bias = make_tensor<float>({4}, pat(4, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {4});
  ASSERT_EQ(r.run("aten::linear.out", {r.tensor(x), r.tensor(w), r.tensor(bias), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: F.linear(x, w, bias) for a 1-D x
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.8125f, -1.5625f, 2.625f, -2.125f}));
}

TEST(OpLinearTest, FeatureMismatchFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, pat(6));
  auto w = make_tensor<float>({4, 2}, pat(8));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  EXPECT_EQ(r.run("aten::linear.out", {r.tensor(x), r.tensor(w), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
