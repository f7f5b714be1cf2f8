// Tests for aten::view_copy.out, unsqueeze_copy.out, squeeze_copy.{out,dim_out,dims_out},
// expand_copy.out and alias_copy/detach_copy/lift_fresh_copy.out. Expected
// values were computed with PyTorch eager (torch.ops.aten.*, CPU).
#include <cstring>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpViewCopyTest, InferredDim) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {4, 6});
  ASSERT_EQ(r.run("aten::view_copy.out", {r.tensor(x), r.int_list({4, -1}), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{4, 6}));
  // PyTorch eager: view_copy(x, [4, -1])
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f,  1.0f,  2.0f,  3.0f,  4.0f,  5.0f,  6.0f,  7.0f,
                                8.0f,  9.0f,  10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f,
                                16.0f, 17.0f, 18.0f, 19.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
}

TEST(OpViewCopyTest, ChannelsLastInput) {
  KernelRunner r;
  // Storage of arange(12).reshape(1,2,2,3) in channels-last memory format (PyTorch).
  auto x = make_tensor<float>(
      {1, 2, 2, 3},
      std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f, 4.0f, 10.0f, 5.0f, 11.0f},
      {0, 2, 3, 1});
  auto out = zeros_tensor(ScalarType::Float, {12});
  ASSERT_EQ(r.run("aten::view_copy.out", {r.tensor(x), r.int_list({12}), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: view_copy(x_channels_last, [12])
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f,
                                                     8.0f, 9.0f, 10.0f, 11.0f}));
}

TEST(OpViewCopyTest, WrongNumelFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {4, 2});
  EXPECT_EQ(r.run("aten::view_copy.out", {r.tensor(x), r.int_list({4, -1}), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::view_copy.out", {r.tensor(x), r.int_list({-1, -1}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpViewCopyTest, DtypeMismatchFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, iota(6));
  auto out = zeros_tensor(ScalarType::Int, {6});
  EXPECT_EQ(r.run("aten::view_copy.out", {r.tensor(x), r.int_list({6}), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpUnsqueezeCopyTest, NegativeDim) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3, 4}, iota(24));
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4, 1});
  ASSERT_EQ(r.run("aten::unsqueeze_copy.out", {r.tensor(x), r.i(-1), r.tensor(out)}), Error::Ok);
  // PyTorch eager: unsqueeze_copy(x, -1)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0.0f,  1.0f,  2.0f,  3.0f,  4.0f,  5.0f,  6.0f,  7.0f,
                                8.0f,  9.0f,  10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f,
                                16.0f, 17.0f, 18.0f, 19.0f, 20.0f, 21.0f, 22.0f, 23.0f}));
  auto bad = zeros_tensor(ScalarType::Float, {2, 3, 4, 1});
  EXPECT_EQ(r.run("aten::unsqueeze_copy.out", {r.tensor(x), r.i(5), r.tensor(bad)}),
            Error::InvalidArgument);
}

TEST(OpSqueezeCopyTest, Variants) {
  KernelRunner r;
  auto x = make_tensor<int64_t>({1, 3, 1, 2}, iota<int64_t>(6));
  auto all = zeros_tensor(ScalarType::Long, {3, 2});
  ASSERT_EQ(r.run("aten::squeeze_copy.out", {r.tensor(x), r.tensor(all)}), Error::Ok);
  EXPECT_EQ(all.values<int64_t>(), iota<int64_t>(6));
  auto one = zeros_tensor(ScalarType::Long, {1, 3, 2});
  ASSERT_EQ(r.run("aten::squeeze_copy.dim_out", {r.tensor(x), r.i(-2), r.tensor(one)}), Error::Ok);
  EXPECT_EQ(one.shape(), (std::vector<int32_t>{1, 3, 2}));
  // A dim whose size is not 1 is left alone (PyTorch semantics).
  auto same = zeros_tensor(ScalarType::Long, {1, 3, 1, 2});
  ASSERT_EQ(r.run("aten::squeeze_copy.dim_out", {r.tensor(x), r.i(1), r.tensor(same)}), Error::Ok);
  auto dims = zeros_tensor(ScalarType::Long, {3, 2});
  ASSERT_EQ(
      r.run("aten::squeeze_copy.dims_out", {r.tensor(x), r.int_list({0, 2, 3}), r.tensor(dims)}),
      Error::Ok);
  EXPECT_EQ(dims.values<int64_t>(), iota<int64_t>(6));
}

TEST(OpSqueezeCopyTest, RepeatedDimFails) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 2, 1}, iota(2));
  auto out = zeros_tensor(ScalarType::Float, {2, 1});
  EXPECT_EQ(r.run("aten::squeeze_copy.dims_out", {r.tensor(x), r.int_list({0, 0}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpExpandCopyTest, NewLeadingDimAndMinusOne) {
  KernelRunner r;
  auto x = make_tensor<float>({3, 1}, {1.f, 2.f, 3.f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(r.run("aten::expand_copy.out",
                  {r.tensor(x), r.int_list({2, -1, 4}), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: expand_copy([[1],[2],[3]], [2, 3, 4])
  EXPECT_EQ(
      out.values<float>(),
      (std::vector<float>{1.0f, 1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f, 2.0f, 3.0f, 3.0f, 3.0f, 3.0f,
                          1.0f, 1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f, 2.0f, 3.0f, 3.0f, 3.0f, 3.0f}));
}

TEST(OpExpandCopyTest, Int32) {
  KernelRunner r;
  auto x = make_tensor<int32_t>({1, 3, 1}, iota<int32_t>(3));
  auto out = zeros_tensor(ScalarType::Int, {2, 3, 3});
  ASSERT_EQ(r.run("aten::expand_copy.out",
                  {r.tensor(x), r.int_list({2, -1, 3}), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: expand_copy(arange(3).reshape(1,3,1), [2, -1, 3])
  EXPECT_EQ(out.values<int32_t>(),
            (std::vector<int32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2}));
}

TEST(OpExpandCopyTest, IncompatibleSizeFails) {
  KernelRunner r;
  auto x = make_tensor<float>({3, 2}, iota(6));
  auto out = zeros_tensor(ScalarType::Float, {3, 4});
  EXPECT_EQ(
      r.run("aten::expand_copy.out", {r.tensor(x), r.int_list({3, 4}), r.b(false), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.run("aten::expand_copy.out", {r.tensor(x), r.int_list({2}), r.b(false), r.tensor(out)}),
      Error::InvalidArgument);
}

TEST(OpAliasCopyTest, PlainCopiesKeepDtype) {
  for (const char* name :
       {"aten::alias_copy.out", "aten::detach_copy.out", "aten::lift_fresh_copy.out"}) {
    KernelRunner r;
    auto x = zeros_tensor(ScalarType::Bool, {2, 2});
    const uint8_t bits[4] = {1, 0, 0, 1};
    std::memcpy(x.tensor().mutable_data(), bits, sizeof(bits));
    auto out = zeros_tensor(ScalarType::Bool, {2, 2});
    ASSERT_EQ(r.run(name, {r.tensor(x), r.tensor(out)}), Error::Ok) << name;
    EXPECT_EQ(out.values<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1})) << name;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
