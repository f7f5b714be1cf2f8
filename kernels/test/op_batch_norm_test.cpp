// Tests for aten::_native_batch_norm_legit_no_training.out,
// _native_batch_norm_legit.out and _native_batch_norm_legit.no_stats_out.
// Expected values were computed with PyTorch eager (torch.ops.aten.*, CPU)
// from the same input patterns.
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

// ((i * mul) % mod - mod / 2) * 0.25, as in the generating Python script.
std::vector<float> pat(size_t n, int mul = 37, int mod = 17) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>((static_cast<int>(i) * mul % mod - mod / 2) * 0.25);
  }
  return v;
}

TEST(OpBatchNormTest, NoTrainingWithAffine) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 2, 2}, pat(24));
  auto w = make_tensor<float>({3}, pat(3, 5, 7));
  auto b = make_tensor<float>({3}, pat(3, 3, 5));
  auto rm = make_tensor<float>({3}, pat(3, 7, 11));
  auto rv = make_tensor<float>({3}, {0.5f, 1.0f, 2.0f});
  auto out0 = zeros_tensor(ScalarType::Float, {2, 3, 2, 2});
  auto out1 = zeros_tensor(ScalarType::Float, {3});
  auto out2 = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit_no_training.out",
                  {r.tensor(x), r.tensor(w), r.tensor(b), r.tensor(rm), r.tensor(rv), r.d(0.1),
                   r.d(1e-5), r.tensor(out0), r.tensor(out1), r.tensor(out2)}),
            Error::Ok);
  // PyTorch eager: _native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 1e-5)
  expect_close(
      out0.values<float>(),
      std::vector<float>{0.295487165f, -0.49999997f,  -1.29548717f,  -2.09097433f,  0.499998748f,
                         0.874996901f, -0.874994397f, -0.499996245f, -0.25f,        -0.25f,
                         -0.25f,       -0.25f,        -0.234837592f, -1.0303247f,   -1.82581186f,
                         -2.62129903f, 0.749997497f,  -0.999993742f, -0.624995589f, -0.249997497f,
                         -0.25f,       -0.25f,        -0.25f,        -0.25f});
  // PyTorch returns empty [0] tensors for the saved statistics.
  EXPECT_EQ(out1.shape(), (std::vector<int32_t>{0}));
  EXPECT_EQ(out2.shape(), (std::vector<int32_t>{0}));
}

TEST(OpBatchNormTest, NoTrainingWithoutWeightAndBias) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 2, 2}, pat(24));
  auto rm = make_tensor<float>({3}, pat(3, 7, 11));
  auto rv = make_tensor<float>({3}, {0.5f, 1.0f, 2.0f});
  auto out0 = zeros_tensor(ScalarType::Float, {2, 3, 2, 2});
  auto out1 = zeros_tensor(ScalarType::Float, {0});
  auto out2 = zeros_tensor(ScalarType::Float, {0});
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit_no_training.out",
                  {r.tensor(x), r.none(), r.none(), r.tensor(rm), r.tensor(rv), r.d(0.1), r.d(1e-3),
                   r.tensor(out0), r.tensor(out1), r.tensor(out2)}),
            Error::Ok);
  // PyTorch eager: _native_batch_norm_legit_no_training(x, None, None, rm, rv, 0.1, 1e-3)
  expect_close(
      out0.values<float>(),
      std::vector<float>{-1.05960107f, 5.96046448e-08f, 1.05960119f,   2.11920238f,  0.499750197f,
                         1.24937546f,  -2.24887586f,    -1.49925065f,  0.176732525f, 0.706930101f,
                         1.23712766f,  1.76732528f,     -0.353200316f, 0.706400812f, 1.76600194f,
                         2.82560301f,  0.999500394f,    -2.49875093f,  -1.74912572f, -0.999500394f,
                         0.530197561f, 1.06039512f,     1.59059274f,   -0.883662641f});
}

TEST(OpBatchNormTest, NoTrainingChannelMismatchFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 2, 2}, pat(24));
  auto rm = make_tensor<float>({4}, pat(4));
  auto rv = make_tensor<float>({4}, {1.0f, 1.0f, 1.0f, 1.0f});
  auto out0 = zeros_tensor(ScalarType::Float, {2, 3, 2, 2});
  auto out1 = zeros_tensor(ScalarType::Float, {0});
  auto out2 = zeros_tensor(ScalarType::Float, {0});
  EXPECT_EQ(r.run("aten::_native_batch_norm_legit_no_training.out",
                  {r.tensor(x), r.none(), r.none(), r.tensor(rm), r.tensor(rv), r.d(0.1), r.d(1e-5),
                   r.tensor(out0), r.tensor(out1), r.tensor(out2)}),
            Error::InvalidArgument);
}

TEST(OpBatchNormTest, LegitTrainingUpdatesRunningStats) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 2, 2}, pat(24));
  auto w = make_tensor<float>({3}, pat(3, 5, 7));
  auto b = make_tensor<float>({3}, pat(3, 3, 5));
  auto rm = make_tensor<float>({3}, pat(3, 7, 11));
  auto rv = make_tensor<float>({3}, {0.5f, 1.0f, 2.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 2, 2});
  auto mean = zeros_tensor(ScalarType::Float, {3});
  auto invstd = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit.out",
                  {r.tensor(x), r.tensor(w), r.tensor(b), r.tensor(rm), r.tensor(rv), r.b(true),
                   r.d(0.1), r.d(1e-5), r.tensor(out), r.tensor(mean), r.tensor(invstd)}),
            Error::Ok);
  // PyTorch eager: _native_batch_norm_legit(x, w, b, rm, rv, True, 0.1, 1e-5)
  expect_close(
      out.values<float>(),
      std::vector<float>{0.678563714f, 0.0357107669f, -0.60714221f,    -1.24999511f,   0.709427595f,
                         0.978360891f, -0.276660979f, -0.00772771239f, -0.25f,         -0.25f,
                         -0.25f,       -0.25f,        0.249995083f,    -0.39285785f,   -1.03571081f,
                         -1.67856371f, 0.888716459f,  -0.366305381f,   -0.0973721296f, 0.171561122f,
                         -0.25f,       -0.25f,        -0.25f,          -0.25f});
  expect_close(mean.values<float>(), std::vector<float>{-0.625f, -0.28125f, 0.59375f});
  expect_close(invstd.values<float>(), std::vector<float>{1.14284968f, 0.717155337f, 0.883785605f});
  expect_close(rm.values<float>(), std::vector<float>{-1.1875f, 0.421875f, -0.390625f});
  expect_close(rv.values<float>(), std::vector<float>{0.537499964f, 1.12220979f, 1.94631696f});
}

TEST(OpBatchNormTest, LegitEvalMatchesNoTraining) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 2, 2}, pat(24));
  auto w = make_tensor<float>({3}, pat(3, 5, 7));
  auto b = make_tensor<float>({3}, pat(3, 3, 5));
  auto rm = make_tensor<float>({3}, pat(3, 7, 11));
  auto rv = make_tensor<float>({3}, {0.5f, 1.0f, 2.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 2, 2});
  auto mean = zeros_tensor(ScalarType::Float, {3});
  auto invstd = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit.out",
                  {r.tensor(x), r.tensor(w), r.tensor(b), r.tensor(rm), r.tensor(rv), r.b(false),
                   r.d(0.1), r.d(1e-5), r.tensor(out), r.tensor(mean), r.tensor(invstd)}),
            Error::Ok);
  // PyTorch eager: _native_batch_norm_legit(x, w, b, rm, rv, False, 0.1, 1e-5)
  expect_close(
      out.values<float>(),
      std::vector<float>{0.295487165f, -0.49999997f,  -1.29548717f,  -2.09097433f,  0.499998748f,
                         0.874996901f, -0.874994397f, -0.499996245f, -0.25f,        -0.25f,
                         -0.25f,       -0.25f,        -0.234837592f, -1.0303247f,   -1.82581186f,
                         -2.62129903f, 0.749997497f,  -0.999993742f, -0.624995589f, -0.249997497f,
                         -0.25f,       -0.25f,        -0.25f,        -0.25f});
  EXPECT_EQ(mean.shape(), (std::vector<int32_t>{0}));
  EXPECT_EQ(invstd.shape(), (std::vector<int32_t>{0}));
  // Running statistics are untouched in eval mode.
  EXPECT_EQ(rv.values<float>(), (std::vector<float>{0.5f, 1.0f, 2.0f}));
}

TEST(OpBatchNormTest, NoStatsTraining3d) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 5}, pat(30, 29, 23));
  auto b = make_tensor<float>({3}, pat(3, 3, 5));
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 5});
  auto mean = zeros_tensor(ScalarType::Float, {3});
  auto invstd = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit.no_stats_out",
                  {r.tensor(x), r.none(), r.tensor(b), r.b(true), r.d(0.2), r.d(1e-5),
                   r.tensor(out), r.tensor(mean), r.tensor(invstd)}),
            Error::Ok);
  // PyTorch eager: _native_batch_norm_legit(x, None, b, True, 0.2, 1e-5)
  expect_close(
      out.values<float>(),
      std::vector<float>{
          -1.92965496f,  -1.1498431f,   -0.370031357f, 0.409780383f, -1.79968631f,  -0.0570753217f,
          0.966509104f,  1.99009347f,   -0.910062313f, 0.113522083f, 0.227672726f,  1.25125718f,
          -1.64889872f,  -0.625314295f, 0.39827013f,   0.799686313f, -1.40978038f,  -0.629968643f,
          0.149843141f,  0.929654896f,  -0.39827013f,  0.625314295f, 1.64889872f,   -1.25125718f,
          -0.227672726f, -0.113522083f, 0.910062313f,  -1.99009347f, -0.966509104f, 0.0570753217f});
  expect_close(mean.values<float>(), std::vector<float>{0.0f, -0.550000012f, 0.0500000007f});
  expect_close(invstd.values<float>(),
               std::vector<float>{0.519874513f, 0.682389617f, 0.682389617f});
}

TEST(OpBatchNormTest, NoStatsEvalFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 5}, pat(30));
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 5});
  auto mean = zeros_tensor(ScalarType::Float, {3});
  auto invstd = zeros_tensor(ScalarType::Float, {3});
  EXPECT_EQ(r.run("aten::_native_batch_norm_legit.no_stats_out",
                  {r.tensor(x), r.none(), r.none(), r.b(false), r.d(0.1), r.d(1e-5), r.tensor(out),
                   r.tensor(mean), r.tensor(invstd)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
