// Tests for aten::cat.out and aten::stack.out. Expected values were computed
// with PyTorch eager (torch.ops.aten.*, CPU).
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpCatTest, Dim0) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, iota(6));
  auto b = make_tensor<float>({1, 3}, iota(3, 100.f));
  auto out = zeros_tensor(ScalarType::Float, {3, 3});
  ASSERT_EQ(r.run("aten::cat.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}), Error::Ok);
  // PyTorch eager: cat([a, b], 0)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 100.0f, 101.0f, 102.0f}));
}

TEST(OpCatTest, LastDimNegative) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, iota(6));
  auto b = make_tensor<float>({2, 2}, iota(4, 200.f));
  auto out = zeros_tensor(ScalarType::Float, {2, 5});
  ASSERT_EQ(r.run("aten::cat.out", {r.tensor_list({&a, &b}), r.i(-1), r.tensor(out)}), Error::Ok);
  // PyTorch eager: cat([a, b], -1)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 200.0f, 201.0f, 3.0f, 4.0f,
                                                     5.0f, 202.0f, 203.0f}));
}

TEST(OpCatTest, SkipsLegacyEmptyTensors) {
  KernelRunner r;
  auto e0 = zeros_tensor(ScalarType::Float, {0});
  auto a = make_tensor<float>({2, 3}, iota(6));
  auto e1 = zeros_tensor(ScalarType::Float, {0});
  auto b = make_tensor<float>({2, 3}, iota(6, 0.f, 2.f));
  auto out = zeros_tensor(ScalarType::Float, {4, 3});
  ASSERT_EQ(r.run("aten::cat.out", {r.tensor_list({&e0, &a, &e1, &b}), r.i(0), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: cat([empty(0), a, empty(0), a * 2], 0)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 0.0f, 2.0f,
                                                     4.0f, 6.0f, 8.0f, 10.0f}));
}

TEST(OpCatTest, MixedDtypesPromoteIntoOut) {
  KernelRunner r;
  auto a = make_tensor<int32_t>({1, 2}, {0, 1});
  auto b = make_tensor<float>({1, 2}, {0.5f, 1.5f});
  auto out = zeros_tensor(ScalarType::Float, {2, 2});
  ASSERT_EQ(r.run("aten::cat.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}), Error::Ok);
  // PyTorch eager: cat([int32 [[0, 1]], float [[0.5, 1.5]]], 0)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 1.0f, 0.5f, 1.5f}));
}

TEST(OpCatTest, ShapeMismatchFails) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, iota(6));
  auto b = make_tensor<float>({2, 2}, iota(4));
  auto out = zeros_tensor(ScalarType::Float, {4, 3});
  EXPECT_EQ(r.run("aten::cat.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::cat.out", {r.tensor_list({&a, &b}), r.i(2), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpStackTest, Dims) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, iota(6));
  auto b = make_tensor<float>({2, 3}, iota(6, 10.f));
  auto c = make_tensor<float>({2, 3}, iota(6, 20.f));
  auto out0 = zeros_tensor(ScalarType::Float, {2, 2, 3});
  ASSERT_EQ(r.run("aten::stack.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out0)}), Error::Ok);
  // PyTorch eager: stack([a, a + 10], 0)
  EXPECT_EQ(out0.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 10.0f,
                                                      11.0f, 12.0f, 13.0f, 14.0f, 15.0f}));
  auto out2 = zeros_tensor(ScalarType::Float, {2, 3, 2});
  ASSERT_EQ(r.run("aten::stack.out", {r.tensor_list({&a, &b}), r.i(-1), r.tensor(out2)}),
            Error::Ok);
  // PyTorch eager: stack([a, a + 10], -1)
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{0.0f, 10.0f, 1.0f, 11.0f, 2.0f, 12.0f, 3.0f,
                                                      13.0f, 4.0f, 14.0f, 5.0f, 15.0f}));
  auto out1 = zeros_tensor(ScalarType::Float, {2, 3, 3});
  ASSERT_EQ(r.run("aten::stack.out", {r.tensor_list({&a, &b, &c}), r.i(1), r.tensor(out1)}),
            Error::Ok);
  // PyTorch eager: stack([a, a + 10, a + 20], 1)
  EXPECT_EQ(out1.values<float>(),
            (std::vector<float>{0.0f, 1.0f, 2.0f, 10.0f, 11.0f, 12.0f, 20.0f, 21.0f, 22.0f, 3.0f,
                                4.0f, 5.0f, 13.0f, 14.0f, 15.0f, 23.0f, 24.0f, 25.0f}));
}

TEST(OpStackTest, UnequalShapesFail) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, iota(6));
  auto b = make_tensor<float>({3, 2}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 3});
  EXPECT_EQ(r.run("aten::stack.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
