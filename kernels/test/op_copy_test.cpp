// Tests for aten::clone.out, dim_order_ops::_clone_dim_order.out,
// aten::copy.out and aten::copy_. Expected values were computed with PyTorch
// eager (torch.ops.aten.*, Tensor.copy_, CPU).
#include <cstring>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpCloneTest, ContiguousAndNoneFormat) {
  KernelRunner r;
  auto x = TestTensor::make<int16_t>({2, 3}, iota<int16_t>(6));
  auto out = TestTensor::zeros(ScalarType::Short, {2, 3});
  ASSERT_EQ(r.run("aten::clone.out", {r.tensor(x), r.none(), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int16_t>(), iota<int16_t>(6));
  ASSERT_EQ(r.run("aten::clone.out", {r.tensor(x), r.i(0), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int16_t>(), iota<int16_t>(6));
  EXPECT_EQ(r.run("aten::clone.out", {r.tensor(x), r.i(9), r.tensor(out)}), Error::InvalidArgument);
}

TEST(OpCloneTest, IntoChannelsLastOut) {
  KernelRunner r;
  auto x = TestTensor::make<float>({1, 2, 2, 3}, iota(12));
  auto out = TestTensor::make<float>({1, 2, 2, 3}, std::vector<float>(12), {0, 2, 3, 1});
  ASSERT_EQ(r.run("aten::clone.out", {r.tensor(x), r.i(2), r.tensor(out)}), Error::Ok);
  // PyTorch eager: storage of arange(12).reshape(1,2,2,3).contiguous(channels_last)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f,
                                                     4.0f, 10.0f, 5.0f, 11.0f}));
}

TEST(OpCloneDimOrderTest, ToChannelsLastAndBack) {
  KernelRunner r;
  auto x = TestTensor::make<float>({1, 2, 2, 3}, iota(12));
  auto cl = TestTensor::make<float>({1, 2, 2, 3}, std::vector<float>(12), {0, 2, 3, 1});
  ASSERT_EQ(r.run("dim_order_ops::_clone_dim_order.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(cl)}),
            Error::Ok);
  // PyTorch eager: storage of arange(12).reshape(1,2,2,3).contiguous(channels_last)
  EXPECT_EQ(cl.values<float>(), (std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f,
                                                    4.0f, 10.0f, 5.0f, 11.0f}));
  auto back = TestTensor::zeros(ScalarType::Float, {1, 2, 2, 3});
  ASSERT_EQ(r.run("dim_order_ops::_clone_dim_order.out",
                  {r.tensor(cl), r.b(false), r.none(), r.tensor(back)}),
            Error::Ok);
  EXPECT_EQ(back.values<float>(), iota(12));
}

TEST(OpCloneDimOrderTest, MismatchedDimOrderFails) {
  KernelRunner r;
  auto x = TestTensor::make<float>({1, 2, 2, 3}, iota(12));
  auto out = TestTensor::zeros(ScalarType::Float, {1, 2, 2, 3});
  EXPECT_EQ(r.run("dim_order_ops::_clone_dim_order.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpCopyTest, BroadcastSrc) {
  KernelRunner r;
  auto self = TestTensor::make<float>({2, 3}, std::vector<float>(6));
  auto src = TestTensor::make<float>({3}, {1.5f, -2.5f, 3.0f});
  auto out = TestTensor::zeros(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: copy(zeros(2, 3), tensor([1.5, -2.5, 3.0]))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.5f, -2.5f, 3.0f, 1.5f, -2.5f, 3.0f}));
}

TEST(OpCopyTest, FloatToIntTruncates) {
  KernelRunner r;
  auto self = TestTensor::make<int32_t>({4}, std::vector<int32_t>(4));
  auto src = TestTensor::make<float>({4}, {1.9f, -1.9f, 300.5f, -0.5f});
  auto out = TestTensor::zeros(ScalarType::Int, {4});
  ASSERT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: copy(zeros(4, int32), tensor([1.9, -1.9, 300.5, -0.5]))
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, -1, 300, 0}));
}

TEST(OpCopyTest, NonBroadcastableFails) {
  KernelRunner r;
  auto self = TestTensor::make<float>({2, 3}, std::vector<float>(6));
  auto src = TestTensor::make<float>({2}, {1.f, 2.f});
  auto out = TestTensor::zeros(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpCopyInplaceTest, WritesSelfWithConversion) {
  KernelRunner r;
  auto self = TestTensor::make<uint8_t>({3}, std::vector<uint8_t>(3));
  auto src = TestTensor::make<float>({3}, {-1.f, 255.f, 256.f});
  ASSERT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(src), r.b(false)}), Error::Ok);
  // PyTorch eager: zeros(3, uint8).copy_(tensor([-1., 255., 256.]))
  EXPECT_EQ(self.values<uint8_t>(), (std::vector<uint8_t>{255, 255, 0}));
}

TEST(OpCopyInplaceTest, BoolSourceAndScalarBroadcast) {
  KernelRunner r;
  auto self = TestTensor::make<float>({3}, std::vector<float>(3));
  auto src = TestTensor::zeros(ScalarType::Bool, {3});
  const uint8_t bits[3] = {1, 0, 1};
  std::memcpy(src.tensor().mutable_data(), bits, sizeof(bits));
  ASSERT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(src), r.b(false)}), Error::Ok);
  // PyTorch eager: zeros(3).copy_(tensor([True, False, True]))
  EXPECT_EQ(self.values<float>(), (std::vector<float>{1.0f, 0.0f, 1.0f}));
  auto scalar = TestTensor::make<double>({}, {2.25});
  ASSERT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(scalar), r.b(false)}), Error::Ok);
  EXPECT_EQ(self.values<float>(), (std::vector<float>{2.25f, 2.25f, 2.25f}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
