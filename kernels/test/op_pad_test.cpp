// Tests for aten::constant_pad_nd.out. Expected values were computed with
// PyTorch eager (torch.ops.aten.*, CPU).
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpConstantPadNdTest, PadTwoDims) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {3, 6});
  ASSERT_EQ(r.run("aten::constant_pad_nd.out",
                  {r.tensor(x), r.int_list({1, 2, 0, 1}), r.d(9.5), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{3, 6}));
  // PyTorch eager: constant_pad_nd(x, [1, 2, 0, 1], 9.5)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{9.5f, 0.0f, 1.0f, 2.0f, 9.5f, 9.5f, 9.5f, 3.0f, 4.0f, 5.0f, 9.5f,
                                9.5f, 9.5f, 9.5f, 9.5f, 9.5f, 9.5f, 9.5f}));
}

TEST(OpConstantPadNdTest, NegativePadCrops) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::constant_pad_nd.out",
                  {r.tensor(x), r.int_list({-1, 1, 1, -1}), r.d(-1.0), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: constant_pad_nd(x, [-1, 1, 1, -1], -1.0)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-1.0f, -1.0f, -1.0f, 1.0f, 2.0f, -1.0f}));
}

TEST(OpConstantPadNdTest, Int64WithIntValue) {
  KernelRunner r;
  auto x = make_tensor<int64_t>({2, 2}, iota<int64_t>(4));
  auto out = zeros_tensor(ScalarType::Long, {2, 4});
  ASSERT_EQ(
      r.run("aten::constant_pad_nd.out", {r.tensor(x), r.int_list({1, 1}), r.i(7), r.tensor(out)}),
      Error::Ok);
  // PyTorch eager: constant_pad_nd(arange(4).reshape(2, 2), [1, 1], 7)
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{7, 0, 1, 7, 7, 2, 3, 7}));
}

TEST(OpConstantPadNdTest, BadPadFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::constant_pad_nd.out",
                  {r.tensor(x), r.int_list({1, 2, 3}), r.d(0.0), r.tensor(out)}),
            Error::InvalidArgument);
  // PyTorch rejects a resulting negative size ("narrow(): length must be non-negative").
  EXPECT_EQ(r.run("aten::constant_pad_nd.out",
                  {r.tensor(x), r.int_list({-3, -1}), r.d(0.0), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
