// Tests for aten::max_pool2d_with_indices.out, avg_pool2d.out and
// _adaptive_avg_pool2d.out. Expected values were computed with PyTorch eager
// (torch.ops.aten.*, CPU) from the same input patterns.
#include <cmath>

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

Error run_max_pool(HostTensor& x, std::vector<int64_t> k, std::vector<int64_t> s,
                   std::vector<int64_t> p, std::vector<int64_t> d, bool ceil, HostTensor& out,
                   HostTensor& idx) {
  KernelRunner r;
  return r.run(
      "aten::max_pool2d_with_indices.out",
      {r.tensor(x), r.int_list(std::move(k)), r.int_list(std::move(s)), r.int_list(std::move(p)),
       r.int_list(std::move(d)), r.b(ceil), r.tensor(out), r.tensor(idx)});
}

Error run_avg_pool(HostTensor& x, std::vector<int64_t> k, std::vector<int64_t> s,
                   std::vector<int64_t> p, bool ceil, bool include_pad, int64_t divisor,
                   HostTensor& out) {
  KernelRunner r;
  return r.run(
      "aten::avg_pool2d.out",
      {r.tensor(x), r.int_list(std::move(k)), r.int_list(std::move(s)), r.int_list(std::move(p)),
       r.b(ceil), r.b(include_pad), divisor == 0 ? r.none() : r.i(divisor), r.tensor(out)});
}

TEST(OpMaxPoolTest, PaddingStride) {
  auto x = make_tensor<float>({1, 2, 5, 5}, pat(50));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 3, 3});
  auto idx = zeros_tensor(ScalarType::Long, {1, 2, 3, 3});
  ASSERT_EQ(run_max_pool(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, out, idx), Error::Ok);
  // PyTorch eager: max_pool2d_with_indices(x, [3,3], [2,2], [1,1], [1,1], False)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{1.75f, 0.25f, 1.0f, 2.0f, 2.0f, 0.5f, 1.5f, 1.75f, -0.5f, 0.5f,
                                2.0f, 2.0f, 0.0f, 1.5f, 1.75f, 2.0f, 0.5f, 1.25f}));
  EXPECT_EQ(idx.values<int64_t>(),
            (std::vector<int64_t>{5, 3, 4, 11, 11, 9, 16, 22, 19, 1, 3, 3, 6, 8, 14, 20, 18, 19}));
}

TEST(OpMaxPoolTest, CeilModeDilationUnbatched) {
  auto x = make_tensor<float>({2, 6, 7}, pat(84, 29, 23));
  auto out = zeros_tensor(ScalarType::Float, {2, 4, 4});
  auto idx = zeros_tensor(ScalarType::Long, {2, 4, 4});
  ASSERT_EQ(run_max_pool(x, {2, 3}, {2, 2}, {1, 1}, {2, 1}, true, out, idx), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 4, 4}));
  // PyTorch eager: max_pool2d_with_indices(x, [2,3], [2,2], [1,1], [2,1], True)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{2.0f,  0.75f, 2.25f, -0.5f,  2.0f,   1.5f,  2.25f, 1.75f,
                                1.5f,  2.5f,  2.5f,  1.75f,  -0.5f,  2.5f,  2.5f,  1.25f,
                                1.75f, 0.5f,  2.0f,  -0.75f, 1.75f,  2.75f, 2.0f,  1.5f,
                                1.25f, 2.75f, 2.25f, 1.5f,   -0.75f, 2.25f, 2.25f, 1.0f}));
  EXPECT_EQ(idx.values<int64_t>(),
            (std::vector<int64_t>{7, 10, 11, 13, 7, 22, 11, 26, 22, 38, 38, 26, 36, 38, 38, 41,
                                  7, 10, 11, 13, 7, 23, 11, 26, 22, 23, 38, 26, 36, 38, 38, 41}));
}

TEST(OpMaxPoolTest, DefaultStrideIsKernel) {
  auto x = make_tensor<float>({1, 2, 5, 5}, pat(50));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 2, 2});
  auto idx = zeros_tensor(ScalarType::Long, {1, 2, 2, 2});
  ASSERT_EQ(run_max_pool(x, {2}, {}, {0}, {1}, false, out, idx), Error::Ok);
  // PyTorch eager: max_pool2d_with_indices(x, [2], [], [0], [1], False)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{1.75f, 0.25f, 2.0f, -0.75f, 0.5f, 2.0f, -0.5f, 1.0f}));
  EXPECT_EQ(idx.values<int64_t>(), (std::vector<int64_t>{5, 3, 11, 13, 1, 3, 11, 13}));
}

TEST(OpMaxPoolTest, NanPropagatesWithLastNanIndex) {
  const float nan = std::nanf("");
  auto x = make_tensor<float>({1, 2, 4}, {1.f, nan, 3.f, 2.f, 4.f, nan, 0.f, 5.f});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2});
  auto idx = zeros_tensor(ScalarType::Long, {1, 1, 2});
  ASSERT_EQ(run_max_pool(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out, idx), Error::Ok);
  // PyTorch eager: values [nan, 5], indices [5, 7]
  EXPECT_TRUE(std::isnan(out.values<float>()[0]));
  EXPECT_EQ(out.values<float>()[1], 5.f);
  EXPECT_EQ(idx.values<int64_t>(), (std::vector<int64_t>{5, 7}));
}

TEST(OpMaxPoolTest, PaddingLargerThanHalfKernelFails) {
  auto x = make_tensor<float>({1, 1, 4, 4}, pat(16));
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 4, 4});
  auto idx = zeros_tensor(ScalarType::Long, {1, 1, 4, 4});
  EXPECT_EQ(run_max_pool(x, {2, 2}, {1, 1}, {2, 2}, {1, 1}, false, out, idx),
            Error::InvalidArgument);
}

TEST(OpMaxPoolTest, WrongIndicesDtypeFails) {
  auto x = make_tensor<float>({1, 1, 4, 4}, pat(16));
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2});
  auto idx = zeros_tensor(ScalarType::Int, {1, 1, 2, 2});
  EXPECT_EQ(run_max_pool(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out, idx), Error::InvalidType);
}

TEST(OpAvgPoolTest, PaddingCountIncludePad) {
  auto x = make_tensor<float>({1, 2, 5, 5}, pat(50));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 3, 3});
  ASSERT_EQ(run_avg_pool(x, {3, 3}, {2, 2}, {1, 1}, false, true, 0, out), Error::Ok);
  // PyTorch eager: avg_pool2d(x, [3,3], [2,2], [1,1], False, True, None)
  expect_close(
      out.values<float>(),
      std::vector<float>{-0.361111104f, -0.5f, 0.166666672f, 0.611111104f, -0.555555582f, -0.25f,
                         0.388888896f, -0.0833333358f, -0.5f, -0.055555556f, 0.666666687f, 0.0f,
                         -0.583333313f, 0.25f, 0.444444448f, -0.25f, -0.333333343f, 0.277777791f});
}

TEST(OpAvgPoolTest, PaddingExcludePad) {
  auto x = make_tensor<float>({1, 2, 5, 5}, pat(50));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 3, 3});
  ASSERT_EQ(run_avg_pool(x, {3, 3}, {2, 2}, {1, 1}, false, false, 0, out), Error::Ok);
  // PyTorch eager: avg_pool2d(x, [3,3], [2,2], [1,1], False, False, None)
  expect_close(out.values<float>(),
               std::vector<float>{-0.8125f, -0.75f, 0.375f, 0.916666687f, -0.555555582f, -0.375f,
                                  0.875f, -0.125f, -1.125f, -0.125f, 1.0f, 0.0f, -0.875f, 0.25f,
                                  0.666666687f, -0.5625f, -0.5f, 0.625f});
}

TEST(OpAvgPoolTest, CeilModeUnbatched) {
  auto x = make_tensor<float>({2, 6, 7}, pat(84, 29, 23));
  auto out = zeros_tensor(ScalarType::Float, {2, 4, 4});
  ASSERT_EQ(run_avg_pool(x, {2, 2}, {2, 2}, {1, 0}, true, true, 0, out), Error::Ok);
  // PyTorch eager: avg_pool2d(x, [2,2], [2,2], [1,0], True, True, None)
  expect_close(
      out.values<float>(),
      std::vector<float>{-1.0f,   0.5f,     -0.875f, 0.25f,   0.8125f, -0.5f,  1.0625f, -1.0f,
                         0.25f,   -1.0625f, 0.5f,    -0.125f, -0.625f, 0.875f, -0.5f,   0.625f,
                         0.3125f, 0.375f,   -1.0f,   0.125f,  0.5625f, -0.75f, 0.8125f, -1.25f,
                         0.0f,    0.125f,   0.25f,   -0.375f, -0.75f,  0.75f,  -0.625f, 0.5f});
}

TEST(OpAvgPoolTest, DivisorOverride) {
  auto x = make_tensor<float>({1, 2, 5, 5}, pat(50));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 4, 4});
  ASSERT_EQ(run_avg_pool(x, {2, 2}, {1, 1}, {0, 0}, false, true, 3, out), Error::Ok);
  // PyTorch eager: avg_pool2d(x, [2,2], [1,1], [0,0], False, True, 3)
  expect_close(
      out.values<float>(),
      std::vector<float>{-1.08333337f,  -1.5f,         -0.5f,         0.5f,        1.08333337f,
                         -0.75f,        -1.16666663f,  -0.166666672f, 1.83333337f, 0.0f,
                         -1.83333337f,  -0.833333313f, 1.16666663f,   0.75f,       -1.08333337f,
                         -1.5f,         -0.166666672f, 0.833333313f,  1.83333337f, 0.0f,
                         -0.833333313f, 0.166666672f,  1.16666663f,   0.75f,       -1.5f,
                         -0.5f,         0.5f,          1.5f,          -0.75f,      -1.16666663f,
                         -0.166666672f, 0.833333313f});
}

TEST(OpAvgPoolTest, ThreeDimKernelListFails) {
  auto x = make_tensor<float>({1, 1, 4, 4}, pat(16));
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2});
  EXPECT_EQ(run_avg_pool(x, {2, 2, 2}, {2, 2}, {0, 0}, false, true, 0, out),
            Error::InvalidArgument);
}

TEST(OpAdaptiveAvgPoolTest, NonDivisibleSizes) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 2, 5, 7}, pat(70, 13, 11));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 3, 4});
  ASSERT_EQ(
      r.run("aten::_adaptive_avg_pool2d.out", {r.tensor(x), r.int_list({3, 4}), r.tensor(out)}),
      Error::Ok);
  // PyTorch eager: _adaptive_avg_pool2d(x, [3, 4])
  expect_close(
      out.values<float>(),
      std::vector<float>{-0.625f,      0.125f,        0.208333328f,  -0.1875f,     0.0416666679f,
                         0.027777778f, -0.194444433f, 0.25f,         -0.4375f,     -0.375f,
                         0.166666672f, 0.0f,          0.375f,        0.208333328f, -0.166666672f,
                         0.125f,       0.125f,        -0.194444433f, 0.194444433f, -0.125f,
                         -0.125f,      0.166666672f,  -0.208333328f, -0.375f});
}

TEST(OpAdaptiveAvgPoolTest, TwoDimInputFails) {
  KernelRunner r;
  auto x = make_tensor<float>({5, 7}, pat(35));
  auto out = zeros_tensor(ScalarType::Float, {1, 1});
  EXPECT_EQ(
      r.run("aten::_adaptive_avg_pool2d.out", {r.tensor(x), r.int_list({1, 1}), r.tensor(out)}),
      Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
