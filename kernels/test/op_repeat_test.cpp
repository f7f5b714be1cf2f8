// Tests for aten::repeat.out. Expected values were computed with PyTorch
// eager (torch.ops.aten.*, CPU).
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpRepeatTest, ExtraLeadingDim) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 6});
  ASSERT_EQ(r.run("aten::repeat.out", {r.tensor(x), r.int_list({2, 1, 2}), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2, 6}));
  // PyTorch eager: repeat(arange(6).reshape(2, 3), [2, 1, 2])
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{0.0f, 1.0f, 2.0f, 0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 3.0f, 4.0f, 5.0f,
                          0.0f, 1.0f, 2.0f, 0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 3.0f, 4.0f, 5.0f}));
}

TEST(OpRepeatTest, Int16AndErrors) {
  KernelRunner r;
  auto x = make_tensor<int16_t>({2}, {1, 2});
  auto out = zeros_tensor(ScalarType::Short, {6});
  ASSERT_EQ(r.run("aten::repeat.out", {r.tensor(x), r.int_list({3}), r.tensor(out)}), Error::Ok);
  // PyTorch eager: repeat(tensor([1, 2], int16), [3])
  EXPECT_EQ(out.values<int16_t>(), (std::vector<int16_t>{1, 2, 1, 2, 1, 2}));
  auto y = make_tensor<float>({2, 3}, iota(6));
  auto yout = zeros_tensor(ScalarType::Float, {6});
  EXPECT_EQ(r.run("aten::repeat.out", {r.tensor(y), r.int_list({3}), r.tensor(yout)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::repeat.out", {r.tensor(x), r.int_list({-1}), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
