// Tests for aten::index_select.out, aten::embedding.out and
// aten::index.Tensor_out. Expected values were computed with PyTorch eager
// (torch.ops.aten.*, CPU).
#include <cstring>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor bool_tensor(std::vector<int32_t> sizes, const std::vector<uint8_t>& bits) {
  auto t = zeros_tensor(ScalarType::Bool, std::move(sizes), ShapeDynamism::Static);
  std::memcpy(t.tensor().mutable_data(), bits.data(), bits.size());
  return t;
}

TEST(OpIndexSelectTest, RepeatedIndices) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto idx = make_tensor<int64_t>({3}, {2, 0, 2});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::index_select.out", {r.tensor(x), r.i(1), r.tensor(idx), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: index_select(x, 1, tensor([2, 0, 2]))
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{8.0f,  9.0f,  10.0f, 11.0f, 0.0f,  1.0f,  2.0f,  3.0f,
                                8.0f,  9.0f,  10.0f, 11.0f, 20.0f, 21.0f, 22.0f, 23.0f,
                                12.0f, 13.0f, 14.0f, 15.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
}

TEST(OpIndexSelectTest, Int32IndexLastDim) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto idx = make_tensor<int32_t>({2}, {3, 1});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 2});
  ASSERT_EQ(r.run("aten::index_select.out", {r.tensor(x), r.i(-1), r.tensor(idx), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: index_select(x, -1, tensor([3, 1], int32))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3.0f, 1.0f, 7.0f, 5.0f, 11.0f, 9.0f, 15.0f,
                                                     13.0f, 19.0f, 17.0f, 23.0f, 21.0f}));
}

TEST(OpIndexSelectTest, OutOfRangeFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto idx = make_tensor<int64_t>({1}, {-1});  // PyTorch: index out of range
  auto out = zeros_tensor(ScalarType::Float, {2, 1});
  EXPECT_EQ(r.run("aten::index_select.out", {r.tensor(x), r.i(1), r.tensor(idx), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpEmbeddingTest, TwoDimIndices) {
  KernelRunner r;
  auto w = make_tensor<float>({5, 3}, iota(15));
  auto idx = make_tensor<int64_t>({2, 2}, {4, 0, 1, 4});
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 3});
  ASSERT_EQ(r.run("aten::embedding.out",
                  {r.tensor(w), r.tensor(idx), r.i(-1), r.b(false), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: embedding(arange(15).reshape(5, 3), tensor([[4, 0], [1, 4]]))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{12.0f, 13.0f, 14.0f, 0.0f, 1.0f, 2.0f, 3.0f,
                                                     4.0f, 5.0f, 12.0f, 13.0f, 14.0f}));
}

TEST(OpEmbeddingTest, OutOfRangeFails) {
  KernelRunner r;
  auto w = make_tensor<float>({5, 3}, iota(15));
  auto idx = make_tensor<int64_t>({1}, {5});
  auto out = zeros_tensor(ScalarType::Float, {1, 3});
  EXPECT_EQ(r.run("aten::embedding.out",
                  {r.tensor(w), r.tensor(idx), r.i(-1), r.b(false), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpIndexTensorTest, FirstDim) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto i0 = make_tensor<int64_t>({3}, {1, 0, 1});
  auto out = zeros_tensor(ScalarType::Float, {3, 3, 4});
  ASSERT_EQ(
      r.run("aten::index.Tensor_out", {r.tensor(x), r.tensor_list({&i0}, true), r.tensor(out)}),
      Error::Ok);
  // PyTorch eager: index(x, [tensor([1, 0, 1])])
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{12.0f, 13.0f, 14.0f, 15.0f, 16.0f, 17.0f, 18.0f, 19.0f, 20.0f,
                                21.0f, 22.0f, 23.0f, 0.0f,  1.0f,  2.0f,  3.0f,  4.0f,  5.0f,
                                6.0f,  7.0f,  8.0f,  9.0f,  10.0f, 11.0f, 12.0f, 13.0f, 14.0f,
                                15.0f, 16.0f, 17.0f, 18.0f, 19.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
}

TEST(OpIndexTensorTest, AdjacentBroadcastIndices) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto i1 = make_tensor<int64_t>({2, 1}, {0, 2});
  auto i2 = make_tensor<int64_t>({2}, {1, -1});
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 2});
  ASSERT_EQ(r.run("aten::index.Tensor_out",
                  {r.tensor(x), r.tensor_list({nullptr, &i1, &i2}, true), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2, 2}));
  // PyTorch eager: index(x, [None, tensor([[0], [2]]), tensor([1, -1])])
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{1.0f, 3.0f, 9.0f, 11.0f, 13.0f, 15.0f, 21.0f, 23.0f}));
}

TEST(OpIndexTensorTest, NonAdjacentIndicesMoveToFront) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto i0 = make_tensor<int64_t>({2}, {0, 1});
  auto i2 = make_tensor<int64_t>({2}, {1, 2});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::index.Tensor_out",
                  {r.tensor(x), r.tensor_list({&i0, nullptr, &i2}, true), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: index(x, [tensor([0, 1]), None, tensor([1, 2])])
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.0f, 5.0f, 9.0f, 14.0f, 18.0f, 22.0f}));
}

TEST(OpIndexTensorTest, BoolMasks) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto m1 = bool_tensor({3}, {1, 0, 1});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::index.Tensor_out",
                  {r.tensor(x), r.tensor_list({nullptr, &m1}, true), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2, 4}));
  // PyTorch eager: index(x, [None, tensor([True, False, True])])
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f,
                                14.0f, 15.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
  auto m2 = bool_tensor({2, 3}, {1, 0, 1, 0, 0, 1});
  auto out2 = zeros_tensor(ScalarType::Float, {6, 4});
  ASSERT_EQ(
      r.run("aten::index.Tensor_out", {r.tensor(x), r.tensor_list({&m2}, true), r.tensor(out2)}),
      Error::Ok);
  EXPECT_EQ(out2.shape(), (std::vector<int32_t>{3, 4}));
  // PyTorch eager: index(x, [tensor([[True, False, True], [False, False, True]])])
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 8.0f, 9.0f, 10.0f,
                                                      11.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
}

TEST(OpIndexTensorTest, ErrorsFail) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto bad = make_tensor<int64_t>({1}, {3});
  auto out = zeros_tensor(ScalarType::Float, {1, 3});
  EXPECT_EQ(
      r.run("aten::index.Tensor_out", {r.tensor(x), r.tensor_list({&bad}, true), r.tensor(out)}),
      Error::InvalidArgument);
  auto a = make_tensor<int64_t>({2}, {0, 1});
  auto b = make_tensor<int64_t>({3}, {0, 1, 2});
  EXPECT_EQ(
      r.run("aten::index.Tensor_out", {r.tensor(x), r.tensor_list({&a, &b}, true), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.run("aten::index.Tensor_out", {r.tensor(x), r.tensor_list({nullptr}, true), r.tensor(out)}),
      Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
