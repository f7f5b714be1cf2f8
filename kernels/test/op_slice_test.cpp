// Tests for aten::slice_copy.Tensor_out, select_copy.int_out, narrow_copy.out,
// split_copy.Tensor_out, split_with_sizes_copy.out and unbind_copy.int_out.
// Expected values were computed with PyTorch eager (torch.ops.aten.*, CPU).
#include <cstdint>
#include <limits>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(OpSliceCopyTest, NegativeBoundsWithStep) {
  KernelRunner r;
  auto x = make_tensor<float>({4, 5}, iota(20));
  auto out = zeros_tensor(ScalarType::Float, {4, 2});
  ASSERT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(1), r.i(-4), r.i(-1), r.i(2), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{4, 2}));
  // PyTorch eager: slice_copy(x, 1, -4, -1, 2)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{1.0f, 3.0f, 6.0f, 8.0f, 11.0f, 13.0f, 16.0f, 18.0f}));
}

TEST(OpSliceCopyTest, Int64MaxEnd) {
  KernelRunner r;
  auto x = make_tensor<float>({4, 5}, iota(20));
  auto out = zeros_tensor(ScalarType::Float, {3, 5});
  ASSERT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(0), r.i(1), r.i(kInt64Max), r.i(1), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: slice_copy(x, 0, 1, 2**63 - 1, 1)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{5.0f, 6.0f, 7.0f, 8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f,
                                15.0f, 16.0f, 17.0f, 18.0f, 19.0f}));
}

TEST(OpSliceCopyTest, OutOfRangeBoundsClampAndNoneDefaults) {
  KernelRunner r;
  auto x = make_tensor<float>({4, 5}, iota(20));
  auto out = zeros_tensor(ScalarType::Float, {4, 2});
  ASSERT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(-1), r.i(-100), r.i(100), r.i(3), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: slice_copy(x, -1, -100, 100, 3)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f, 3.0f, 5.0f, 8.0f, 10.0f, 13.0f, 15.0f, 18.0f}));
  auto all = zeros_tensor(ScalarType::Float, {4, 5});
  ASSERT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(0), r.none(), r.none(), r.i(1), r.tensor(all)}),
            Error::Ok);
  EXPECT_EQ(all.values<float>(), iota(20));
}

TEST(OpSliceCopyTest, EmptyWhenEndBeforeStart) {
  KernelRunner r;
  auto x = make_tensor<float>({4, 5}, iota(20));
  auto out = zeros_tensor(ScalarType::Float, {4, 5});
  ASSERT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(0), r.i(3), r.i(1), r.i(1), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: slice_copy(x, 0, 3, 1, 1) has shape [0, 5]
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{0, 5}));
}

TEST(OpSliceCopyTest, BadStepAndDimFail) {
  KernelRunner r;
  auto x = make_tensor<float>({4, 5}, iota(20));
  auto out = zeros_tensor(ScalarType::Float, {4, 5});
  EXPECT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(0), r.i(0), r.i(4), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::slice_copy.Tensor_out",
                  {r.tensor(x), r.i(2), r.i(0), r.i(4), r.i(1), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpSelectCopyTest, NegativeIndex) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::select_copy.int_out", {r.tensor(x), r.i(1), r.i(-1), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: select_copy(x, 1, -1)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{8.0f, 9.0f, 10.0f, 11.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
  EXPECT_EQ(r.run("aten::select_copy.int_out", {r.tensor(x), r.i(1), r.i(3), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpSelectCopyTest, ToScalar) {
  KernelRunner r;
  auto x = make_tensor<int32_t>({3}, {7, 8, 9});
  auto out = zeros_tensor(ScalarType::Int, {});
  ASSERT_EQ(r.run("aten::select_copy.int_out", {r.tensor(x), r.i(0), r.i(1), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{8}));
}

TEST(OpNarrowCopyTest, NegativeStart) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 2});
  ASSERT_EQ(r.run("aten::narrow_copy.out", {r.tensor(x), r.i(2), r.i(-3), r.i(2), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: narrow_copy(x, 2, -3, 2)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.0f, 2.0f, 5.0f, 6.0f, 9.0f, 10.0f, 13.0f,
                                                     14.0f, 17.0f, 18.0f, 21.0f, 22.0f}));
  EXPECT_EQ(r.run("aten::narrow_copy.out", {r.tensor(x), r.i(2), r.i(3), r.i(2), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpSplitCopyTest, UnevenLastChunk) {
  KernelRunner r;
  auto x = make_tensor<float>({5, 2}, iota(10));
  auto o0 = zeros_tensor(ScalarType::Float, {2, 2});
  auto o1 = zeros_tensor(ScalarType::Float, {2, 2});
  auto o2 = zeros_tensor(ScalarType::Float, {2, 2});
  ASSERT_EQ(r.run("aten::split_copy.Tensor_out",
                  {r.tensor(x), r.i(2), r.i(0), r.tensor_list({&o0, &o1, &o2})}),
            Error::Ok);
  // PyTorch eager: split_copy(arange(10).reshape(5, 2), 2, 0)
  EXPECT_EQ(o0.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(o1.values<float>(), (std::vector<float>{4.0f, 5.0f, 6.0f, 7.0f}));
  EXPECT_EQ(o2.shape(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(o2.values<float>(), (std::vector<float>{8.0f, 9.0f}));
}

TEST(OpSplitCopyTest, WrongOutputCountFails) {
  KernelRunner r;
  auto x = make_tensor<float>({5, 2}, iota(10));
  auto o0 = zeros_tensor(ScalarType::Float, {2, 2});
  auto o1 = zeros_tensor(ScalarType::Float, {2, 2});
  EXPECT_EQ(r.run("aten::split_copy.Tensor_out",
                  {r.tensor(x), r.i(2), r.i(0), r.tensor_list({&o0, &o1})}),
            Error::InvalidArgument);
}

TEST(OpSplitWithSizesCopyTest, IncludingEmptyPiece) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 6}, iota(12));
  auto o0 = zeros_tensor(ScalarType::Float, {2, 1});
  auto o1 = zeros_tensor(ScalarType::Float, {2, 0});
  auto o2 = zeros_tensor(ScalarType::Float, {2, 5});
  ASSERT_EQ(r.run("aten::split_with_sizes_copy.out",
                  {r.tensor(x), r.int_list({1, 0, 5}), r.i(-1), r.tensor_list({&o0, &o1, &o2})}),
            Error::Ok);
  // PyTorch eager: split_with_sizes_copy(arange(12).reshape(2, 6), [1, 0, 5], -1)
  EXPECT_EQ(o0.values<float>(), (std::vector<float>{0.0f, 6.0f}));
  EXPECT_EQ(o1.shape(), (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(o2.values<float>(),
            (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 7.0f, 8.0f, 9.0f, 10.0f, 11.0f}));
  EXPECT_EQ(r.run("aten::split_with_sizes_copy.out",
                  {r.tensor(x), r.int_list({1, 1, 5}), r.i(-1), r.tensor_list({&o0, &o1, &o2})}),
            Error::InvalidArgument);
}

TEST(OpUnbindCopyTest, InnerDim) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto o0 = zeros_tensor(ScalarType::Float, {2});
  auto o1 = zeros_tensor(ScalarType::Float, {2});
  auto o2 = zeros_tensor(ScalarType::Float, {2});
  ASSERT_EQ(
      r.run("aten::unbind_copy.int_out", {r.tensor(x), r.i(1), r.tensor_list({&o0, &o1, &o2})}),
      Error::Ok);
  // PyTorch eager: unbind_copy(arange(6).reshape(2, 3), 1)
  EXPECT_EQ(o0.values<float>(), (std::vector<float>{0.0f, 3.0f}));
  EXPECT_EQ(o2.values<float>(), (std::vector<float>{2.0f, 5.0f}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
