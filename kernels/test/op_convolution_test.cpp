// Tests for aten::convolution.out. Expected values were computed with
// PyTorch eager (torch.ops.aten.convolution, CPU) from the same input
// patterns; all values are multiples of 1/16, so float results are exact.
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

struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation;
  bool transposed;
  std::vector<int64_t> output_padding;
  int64_t groups;
};

Error run_conv(HostTensor& x, HostTensor& w, HostTensor* bias, const ConvArgs& a, HostTensor& out) {
  KernelRunner r;
  return r.run("aten::convolution.out",
               {r.tensor(x), r.tensor(w), bias == nullptr ? r.none() : r.tensor(*bias),
                r.int_list(a.stride), r.int_list(a.padding), r.int_list(a.dilation),
                r.b(a.transposed), r.int_list(a.output_padding), r.i(a.groups), r.tensor(out)});
}

TEST(OpConvolutionTest, Conv2dPaddingBias) {
  auto x = make_tensor<float>({1, 2, 5, 5}, pat(50));
  auto w = make_tensor<float>({3, 2, 3, 3}, pat(54, 13, 11));
  auto b = make_tensor<float>({3}, pat(3, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {1, 3, 5, 5});
  ASSERT_EQ(run_conv(x, w, &b, {{1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1}, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 3, 5, 5}));
  // PyTorch eager: convolution(x, w, b, [1,1], [1,1], [1,1], False, [0,0], 1)
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{
          -5.4375f, -4.625f,  0.375f,   4.3125f,  -2.4375f, -2.1875f, -3.8125f, -3.5f,    4.25f,
          1.0625f,  -0.3125f, -5.4375f, -1.9375f, 5.8125f,  0.0f,     3.6875f,  -4.9375f, -8.875f,
          -3.25f,   4.25f,    -1.625f,  -2.1875f, -1.5f,    0.25f,    1.3125f,  4.0f,     1.0625f,
          1.375f,   -2.5625f, -1.4375f, 1.5f,     6.1875f,  -0.0625f, -2.0625f, 0.125f,   -0.9375f,
          -0.625f,  4.8125f,  2.8125f,  3.25f,    -1.25f,   -2.125f,  4.375f,   0.25f,    0.0f,
          1.9375f,  -5.75f,   -2.375f,  5.25f,    0.375f,   4.125f,   2.9375f,  0.625f,   2.5625f,
          -1.5f,    -6.1875f, 1.375f,   2.3125f,  4.3125f,  -2.5625f, -4.0f,    -0.3125f, -2.5625f,
          -0.5625f, 2.0f,     0.3125f,  -5.1875f, 2.125f,   2.0f,     0.1875f,  6.5f,     -0.0625f,
          -5.6875f, -3.875f,  1.8125f}));
}

TEST(OpConvolutionTest, GroupsStrideDilationNoBias) {
  auto x = make_tensor<float>({2, 4, 6, 7}, pat(2 * 4 * 6 * 7, 29, 23));
  auto w = make_tensor<float>({4, 2, 3, 2}, pat(48, 31, 19));
  auto out = zeros_tensor(ScalarType::Float, {2, 4, 3, 5});
  ASSERT_EQ(run_conv(x, w, nullptr, {{2, 1}, {1, 0}, {1, 2}, false, {0, 0}, 2}, out), Error::Ok);
  // PyTorch eager: convolution(x, w, None, [2,1], [1,0], [1,2], False, [0,0], 2)
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{
          -4.1875f, 10.5625f,  -6.3125f, -10.25f,   7.375f,    0.3125f,   -8.3125f,  7.5f,
          8.9375f,  -12.625f,  7.5f,     -8.3125f,  0.3125f,   8.9375f,   8.9375f,   -3.9375f,
          -4.8125f, 5.8125f,   2.0625f,  -7.4375f,  4.375f,    2.5625f,   -2.125f,   6.125f,
          2.875f,   -6.625f,   11.6875f, -0.1875f,  -12.0625f, 6.25f,     1.25f,     -0.75f,
          -5.625f,  5.3125f,   0.4375f,  -8.6875f,  13.5625f,  8.5f,      -9.5f,     -8.8125f,
          2.375f,   1.625f,    5.1875f,  1.5625f,   2.25f,     -10.3125f, -0.625f,   10.5f,
          -10.0f,   -10.375f,  12.5f,    -13.0625f, -11.3125f, 16.3125f,  12.3125f,  5.375f,
          11.4375f, -5.5f,     -2.3125f, 5.1875f,   -10.1875f, 7.4375f,   10.6875f,  -6.1875f,
          -10.125f, -2.5625f,  -12.625f, -2.5625f,  11.8125f,  -8.3125f,  8.9375f,   8.9375f,
          0.3125f,  -8.3125f,  7.5f,     2.875f,    -6.625f,   -3.1875f,  7.4375f,   3.6875f,
          6.0625f,  2.8125f,   -7.625f,  -13.75f,   11.75f,    -12.125f,  6.1875f,   4.375f,
          2.5625f,  -2.125f,   4.5f,     1.0625f,   -2.375f,   -5.8125f,  3.6875f,   -9.625f,
          -4.625f,  0.375f,    2.5f,     -9.75f,    8.625f,    -6.5f,     -8.6875f,  13.5625f,
          8.5f,     -10.0625f, 2.5f,     10.75f,    7.5f,      -10.125f,  16.125f,   0.625f,
          -14.875f, -5.9375f,  15.9375f, -11.125f,  7.875f,    12.5f,     -13.0625f, -11.3125f}));
}

TEST(OpConvolutionTest, DepthwiseStride2) {
  auto x = make_tensor<float>({2, 4, 6, 7}, pat(2 * 4 * 6 * 7, 29, 23));
  auto w = make_tensor<float>({4, 1, 3, 3}, pat(36, 7, 13));
  auto b = make_tensor<float>({4}, pat(4, 3, 5));
  auto out = zeros_tensor(ScalarType::Float, {2, 4, 3, 4});
  ASSERT_EQ(run_conv(x, w, &b, {{2, 2}, {1, 1}, {1, 1}, false, {0, 0}, 4}, out), Error::Ok);
  // PyTorch eager: convolution(x, w, b, [2,2], [1,1], [1,1], False, [0,0], 4)
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{
          4.4375f,  0.5f,     4.8125f,  -0.5f,    2.9375f,  1.3125f,  2.4375f,  1.4375f,  -2.75f,
          -5.1875f, -4.0625f, -4.1875f, -0.875f,  2.75f,    6.6875f,  2.3125f,  -5.875f,  2.3125f,
          -3.5f,    -3.0f,    3.75f,    -5.3125f, -1.0625f, 0.9375f,  7.4375f,  -4.5f,    7.0625f,
          -3.25f,   -5.5f,    -0.625f,  -7.625f,  -3.125f,  0.75f,    -5.0625f, 3.75f,    -0.4375f,
          6.5f,     4.875f,   -1.5f,    -0.0625f, 0.5f,     -2.6875f, -3.375f,  -2.5625f, 0.5f,
          -3.1875f, -1.0f,    -2.5f,    -4.4375f, -3.8125f, -3.8125f, -4.5625f, -3.5f,    0.9375f,
          -2.25f,   0.0625f,  3.75f,    3.0625f,  1.3125f,  -1.25f,   -4.875f,  -1.4375f, -4.6875f,
          -2.625f,  3.25f,    1.375f,   5.625f,   8.3125f,  7.125f,   -3.375f,  2.3125f,  0.75f,
          -0.6875f, 3.625f,   -2.0625f, 3.125f,   0.5f,     9.375f,   -3.375f,  6.125f,   1.0f,
          -8.0f,    -0.625f,  -2.6875f, 1.4375f,  -1.625f,  4.9375f,  5.4375f,  0.5f,     8.5625f,
          5.0f,     3.9375f,  -2.375f,  -0.5625f, -2.6875f, -1.75f}));
}

TEST(OpConvolutionTest, Conv1dStridePaddingDilation) {
  auto x = make_tensor<float>({2, 3, 9}, pat(54));
  auto w = make_tensor<float>({4, 3, 3}, pat(36, 13, 11));
  auto b = make_tensor<float>({4}, pat(4, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {2, 4, 5});
  ASSERT_EQ(run_conv(x, w, &b, {{2}, {2}, {2}, false, {0}, 1}, out), Error::Ok);
  // PyTorch eager: convolution(x, w, b, [2], [2], [2], False, [0], 1)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{
                4.375f,   3.6875f,  -0.6875f, -4.0f,    1.0625f,  -2.3125f, -5.6875f, 5.6875f,
                -1.0f,    -0.8125f, -2.5f,    1.75f,    1.375f,   -1.125f,  4.5f,     4.875f,
                -1.8125f, -2.25f,   -0.5625f, -2.5625f, -1.4375f, -4.375f,  -0.25f,   -0.375f,
                1.4375f,  7.25f,    -0.875f,  -0.125f,  3.8125f,  -2.25f,   -0.9375f, -1.1875f,
                3.75f,    -4.0625f, -2.1875f, -1.5625f, -0.8125f, -3.375f,  0.4375f,  6.125f}));
}

TEST(OpConvolutionTest, TransposedGroupsOutputPadding) {
  auto x = make_tensor<float>({1, 4, 3, 3}, pat(36));
  auto w = make_tensor<float>({4, 3, 3, 3}, pat(108, 13, 11));
  auto b = make_tensor<float>({6}, pat(6, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {1, 6, 6, 6});
  ASSERT_EQ(run_conv(x, w, &b, {{2, 2}, {1, 1}, {1, 1}, true, {1, 1}, 2}, out), Error::Ok);
  // PyTorch eager: convolution(x, w, b, [2,2], [1,1], [1,1], True, [1,1], 2)
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{
          -2.0f,    -3.0625f, -1.0625f, -1.1875f, -0.125f,  0.625f,   1.1875f,  -2.6875f, -1.0625f,
          -5.125f,  -3.3125f, -1.6875f, -1.3125f, -1.6875f, -0.375f,  0.1875f,  0.5625f,  1.4375f,
          0.8125f,  2.75f,    -1.4375f, -5.0f,    0.5625f,  0.3125f,  -1.6875f, -2.4375f, -0.75f,
          -0.5625f, -1.9375f, -3.0625f, -0.4375f, -1.8125f, -1.375f,  1.625f,   0.875f,   -0.25f,
          0.75f,    -0.3125f, 0.1875f,  -1.4375f, -0.375f,  0.375f,   -2.375f,  -0.3125f, 0.625f,
          -0.5f,    3.625f,   -3.6875f, 1.1875f,  0.5625f,  0.625f,   -0.5625f, 0.0625f,  0.9375f,
          -1.875f,  5.5f,     1.125f,   4.25f,    0.9375f,  -3.4375f, 0.5625f,  -0.6875f, 0.0f,
          2.4375f,  1.5625f,  0.4375f,  -0.9375f, 1.3125f,  0.75f,    -1.5625f, -1.8125f, 3.25f,
          3.125f,   0.6875f,  3.125f,   0.6875f,  3.125f,   -1.625f,  -0.125f,  -1.75f,   -0.125f,
          -1.75f,   -0.125f,  1.5f,     -2.1875f, 1.75f,    -2.1875f, 1.75f,    -2.1875f, -1.3125f,
          -0.125f,  -1.75f,   -0.125f,  1.4375f,  0.9375f,  0.6875f,  3.125f,   0.6875f,  3.125f,
          -2.5f,    -2.1875f, 2.1875f,  -0.4375f, -1.4375f, -0.25f,   1.0625f,  -0.0625f, -1.1875f,
          -0.8125f, -1.6875f, -0.625f,  0.8125f,  -0.4375f, -1.0625f, -3.0f,    2.3125f,  -4.6875f,
          -5.4375f, 4.25f,    1.0625f,  -0.25f,   -0.5625f, -0.0625f, 0.875f,   -0.9375f, -1.4375f,
          2.5625f,  -0.75f,   -4.4375f, -1.0625f, -1.875f,  0.6875f,  -0.75f,   0.5625f,  -0.5625f,
          -1.1875f, -0.375f,  -0.75f,   -1.375f,  -3.4375f, 2.25f,    0.5f,     0.5625f,  0.1875f,
          0.4375f,  3.5625f,  -0.875f,  -2.3125f, 2.0625f,  1.4375f,  0.75f,    0.75f,    2.25f,
          3.75f,    -0.5f,    -1.625f,  0.75f,    -1.3125f, -0.5625f, 3.4375f,  1.3125f,  0.8125f,
          1.0f,     2.3125f,  1.4375f,  1.0625f,  -0.25f,   -1.125f,  0.0f,     -1.9375f, 2.9375f,
          -0.375f,  1.625f,   1.25f,    0.75f,    0.9375f,  -0.4375f, -1.4375f, 0.5f,     0.125f,
          -0.0625f, 3.625f,   1.25f,    3.125f,   -0.625f,  -1.9375f, 0.0f,     -3.25f,   -1.5f,
          2.25f,    1.25f,    0.125f,   0.6875f,  -1.0625f, 2.0f,     -2.625f,  -0.9375f, 3.375f,
          -0.25f,   1.5625f,  1.4375f,  2.8125f,  1.0f,     0.125f,   0.375f,   2.75f,    -1.5f,
          -2.0f,    -0.1875f, -1.9375f, -0.25f,   2.1875f,  1.3125f,  1.0625f,  0.75f,    0.375f}));
}

TEST(OpConvolutionTest, DoubleWithBroadcastParams) {
  auto x = make_tensor<double>({1, 2, 5, 5}, pat<double>(50));
  auto w = make_tensor<double>({3, 2, 3, 3}, pat<double>(54, 13, 11));
  auto b = make_tensor<double>({3}, pat<double>(3, 5, 7));
  auto out = zeros_tensor(ScalarType::Double, {1, 3, 5, 5});
  ASSERT_EQ(run_conv(x, w, &b, {{1}, {1}, {1}, false, {0}, 1}, out), Error::Ok);
  // PyTorch eager: convolution(x.double(), w.double(), b.double(), [1], [1], [1], False, [0], 1)
  EXPECT_EQ(
      out.values<double>(),
      (std::vector<double>{
          -5.4375, -4.625,  0.375,   4.3125,  -2.4375, -2.1875, -3.8125, -3.5,   4.25,    1.0625,
          -0.3125, -5.4375, -1.9375, 5.8125,  0.0,     3.6875,  -4.9375, -8.875, -3.25,   4.25,
          -1.625,  -2.1875, -1.5,    0.25,    1.3125,  4.0,     1.0625,  1.375,  -2.5625, -1.4375,
          1.5,     6.1875,  -0.0625, -2.0625, 0.125,   -0.9375, -0.625,  4.8125, 2.8125,  3.25,
          -1.25,   -2.125,  4.375,   0.25,    0.0,     1.9375,  -5.75,   -2.375, 5.25,    0.375,
          4.125,   2.9375,  0.625,   2.5625,  -1.5,    -6.1875, 1.375,   2.3125, 4.3125,  -2.5625,
          -4.0,    -0.3125, -2.5625, -0.5625, 2.0,     0.3125,  -5.1875, 2.125,  2.0,     0.1875,
          6.5,     -0.0625, -5.6875, -3.875,  1.8125}));
}

TEST(OpConvolutionTest, ChannelMismatchFails) {
  auto x = make_tensor<float>({1, 3, 5, 5}, pat(75));
  auto w = make_tensor<float>({3, 2, 3, 3}, pat(54));
  auto out = zeros_tensor(ScalarType::Float, {1, 3, 3, 3});
  EXPECT_EQ(run_conv(x, w, nullptr, {{1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1}, out),
            Error::InvalidArgument);
}

TEST(OpConvolutionTest, KernelLargerThanInputFails) {
  auto x = make_tensor<float>({1, 1, 2, 2}, pat(4));
  auto w = make_tensor<float>({1, 1, 3, 3}, pat(9));
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 1, 1});
  EXPECT_EQ(run_conv(x, w, nullptr, {{1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1}, out),
            Error::InvalidArgument);
}

TEST(OpConvolutionTest, BadParamsFail) {
  auto x = make_tensor<float>({1, 1, 4, 4}, pat(16));
  auto w = make_tensor<float>({1, 1, 3, 3}, pat(9));
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2});
  EXPECT_EQ(run_conv(x, w, nullptr, {{0, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1}, out),
            Error::InvalidArgument);
  EXPECT_EQ(run_conv(x, w, nullptr, {{1, 1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1}, out),
            Error::InvalidArgument);
  EXPECT_EQ(run_conv(x, w, nullptr, {{1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 0}, out),
            Error::InvalidArgument);
}

TEST(OpConvolutionTest, IntegerDtypeRejected) {
  auto x = make_tensor<int32_t>({1, 1, 3, 3}, std::vector<int32_t>(9, 1));
  auto w = make_tensor<int32_t>({1, 1, 3, 3}, std::vector<int32_t>(9, 1));
  auto out = zeros_tensor(ScalarType::Int, {1, 1, 1, 1});
  EXPECT_EQ(run_conv(x, w, nullptr, {{1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1}, out),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
