// Tests for aten::permute_copy.out, transpose_copy.int_out, t_copy.out,
// flip.out, pixel_shuffle.out and pixel_unshuffle.out. Expected values were
// computed with PyTorch eager (torch.ops.aten.*, CPU).
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpPermuteCopyTest, ThreeDims) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {4, 2, 3});
  ASSERT_EQ(r.run("aten::permute_copy.out", {r.tensor(x), r.int_list({2, 0, 1}), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{4, 2, 3}));
  // PyTorch eager: permute_copy(x, [2, 0, 1])
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f,  4.0f,  8.0f,  12.0f, 16.0f, 20.0f, 1.0f,  5.0f,
                                9.0f,  13.0f, 17.0f, 21.0f, 2.0f,  6.0f,  10.0f, 14.0f,
                                18.0f, 22.0f, 3.0f,  7.0f,  11.0f, 15.0f, 19.0f, 23.0f}));
}

TEST(OpPermuteCopyTest, NegativeDimsInt64) {
  KernelRunner r;
  auto x = make_tensor<int64_t>({2, 3, 4}, iota<int64_t>(24));
  auto out = zeros_tensor(ScalarType::Long, {4, 3, 2});
  ASSERT_EQ(r.run("aten::permute_copy.out", {r.tensor(x), r.int_list({-1, -2, 0}), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: permute_copy(x, [-1, -2, 0])
  EXPECT_EQ(out.values<int64_t>(),
            (std::vector<int64_t>{0, 12, 4, 16, 8,  20, 1, 13, 5, 17, 9,  21,
                                  2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}));
}

TEST(OpPermuteCopyTest, ChannelsLastInputToNhwc) {
  KernelRunner r;
  // Storage of arange(12).reshape(1,2,2,3) in channels-last memory format (PyTorch).
  auto x = make_tensor<float>(
      {1, 2, 2, 3},
      std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f, 4.0f, 10.0f, 5.0f, 11.0f},
      {0, 2, 3, 1});
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 3, 2});
  ASSERT_EQ(r.run("aten::permute_copy.out", {r.tensor(x), r.int_list({0, 2, 3, 1}), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: permute_copy(x, [0, 2, 3, 1]) equals the channels-last storage order.
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f,
                                                     4.0f, 10.0f, 5.0f, 11.0f}));
}

TEST(OpPermuteCopyTest, RepeatedDimFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {2, 2});
  EXPECT_EQ(r.run("aten::permute_copy.out", {r.tensor(x), r.int_list({0, 0}), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::permute_copy.out", {r.tensor(x), r.int_list({0}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpTransposeCopyTest, OuterAndInner) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {4, 3, 2});
  ASSERT_EQ(r.run("aten::transpose_copy.int_out", {r.tensor(x), r.i(0), r.i(-1), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: transpose_copy(x, 0, -1)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f,  12.0f, 4.0f, 16.0f, 8.0f, 20.0f, 1.0f,  13.0f,
                                5.0f,  17.0f, 9.0f, 21.0f, 2.0f, 14.0f, 6.0f,  18.0f,
                                10.0f, 22.0f, 3.0f, 15.0f, 7.0f, 19.0f, 11.0f, 23.0f}));
}

TEST(OpTransposeCopyTest, ScalarAndBadDim) {
  KernelRunner r;
  auto x = make_tensor<float>({}, {3.f});
  auto out = zeros_tensor(ScalarType::Float, {});
  ASSERT_EQ(r.run("aten::transpose_copy.int_out", {r.tensor(x), r.i(0), r.i(-1), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3.f}));
  auto y = make_tensor<float>({2, 2}, iota(4));
  auto out2 = zeros_tensor(ScalarType::Float, {2, 2});
  EXPECT_EQ(r.run("aten::transpose_copy.int_out", {r.tensor(y), r.i(0), r.i(2), r.tensor(out2)}),
            Error::InvalidArgument);
}

TEST(OpTCopyTest, MatrixAndVector) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {3, 2});
  ASSERT_EQ(r.run("aten::t_copy.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  // PyTorch eager: t_copy(arange(6).reshape(2, 3))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 3.0f, 1.0f, 4.0f, 2.0f, 5.0f}));
  auto v = make_tensor<float>({3}, iota(3));
  auto vout = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::t_copy.out", {r.tensor(v), r.tensor(vout)}), Error::Ok);
  EXPECT_EQ(vout.values<float>(), iota(3));
  auto c = make_tensor<float>({1, 1, 1}, iota(1));
  auto cout = zeros_tensor(ScalarType::Float, {1, 1, 1});
  EXPECT_EQ(r.run("aten::t_copy.out", {r.tensor(c), r.tensor(cout)}), Error::InvalidArgument);
}

TEST(OpFlipTest, TwoDims) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::flip.out", {r.tensor(x), r.int_list({0, -1}), r.tensor(out)}), Error::Ok);
  // PyTorch eager: flip(x, [0, -1])
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{15.0f, 14.0f, 13.0f, 12.0f, 19.0f, 18.0f, 17.0f, 16.0f,
                                23.0f, 22.0f, 21.0f, 20.0f, 3.0f,  2.0f,  1.0f,  0.0f,
                                7.0f,  6.0f,  5.0f,  4.0f,  11.0f, 10.0f, 9.0f,  8.0f}));
  EXPECT_EQ(r.run("aten::flip.out", {r.tensor(x), r.int_list({1, 1}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPixelShuffleTest, Upscale2) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 8, 2, 3}, iota(48));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 4, 6});
  ASSERT_EQ(r.run("aten::pixel_shuffle.out", {r.tensor(x), r.i(2), r.tensor(out)}), Error::Ok);
  // PyTorch eager: pixel_shuffle(arange(48).reshape(1,8,2,3), 2)
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{0.0f,  6.0f,  1.0f,  7.0f,  2.0f,  8.0f,  12.0f, 18.0f, 13.0f, 19.0f,
                          14.0f, 20.0f, 3.0f,  9.0f,  4.0f,  10.0f, 5.0f,  11.0f, 15.0f, 21.0f,
                          16.0f, 22.0f, 17.0f, 23.0f, 24.0f, 30.0f, 25.0f, 31.0f, 26.0f, 32.0f,
                          36.0f, 42.0f, 37.0f, 43.0f, 38.0f, 44.0f, 27.0f, 33.0f, 28.0f, 34.0f,
                          29.0f, 35.0f, 39.0f, 45.0f, 40.0f, 46.0f, 41.0f, 47.0f}));
  auto bad = make_tensor<float>({1, 6, 2, 3}, iota(36));
  auto bad_out = zeros_tensor(ScalarType::Float, {1, 2, 4, 6});
  EXPECT_EQ(r.run("aten::pixel_shuffle.out", {r.tensor(bad), r.i(2), r.tensor(bad_out)}),
            Error::InvalidArgument);
}

TEST(OpPixelUnshuffleTest, Downscale2) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 2, 4, 6}, iota(48));
  auto out = zeros_tensor(ScalarType::Float, {1, 8, 2, 3});
  ASSERT_EQ(r.run("aten::pixel_unshuffle.out", {r.tensor(x), r.i(2), r.tensor(out)}), Error::Ok);
  // PyTorch eager: pixel_unshuffle(arange(48).reshape(1,2,4,6), 2)
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{0.0f,  2.0f,  4.0f,  12.0f, 14.0f, 16.0f, 1.0f,  3.0f,  5.0f,  13.0f,
                          15.0f, 17.0f, 6.0f,  8.0f,  10.0f, 18.0f, 20.0f, 22.0f, 7.0f,  9.0f,
                          11.0f, 19.0f, 21.0f, 23.0f, 24.0f, 26.0f, 28.0f, 36.0f, 38.0f, 40.0f,
                          25.0f, 27.0f, 29.0f, 37.0f, 39.0f, 41.0f, 30.0f, 32.0f, 34.0f, 42.0f,
                          44.0f, 46.0f, 31.0f, 33.0f, 35.0f, 43.0f, 45.0f, 47.0f}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
