// Tests for sum, mean, prod and var. Expected values were computed with
// PyTorch eager (CPU) from the same inputs.
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// x = [[[1.5, -2, 3.25, 0.5], [4, 5.5, -6, 7], [0.25, 8, -1, 2]],
//      [[9, -3.5, 1, 0.75], [2, 2, 6.5, -4], [3, -0.5, 0, 1.25]]]
HostTensor int_sample_2x3x4() { return make_tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(OpSumTest, OneDim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({1}), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {5.75f, 11.5f, -3.75f, 9.5f, 14.0f, -2.0f, 7.5f, -2.0f});
}

TEST(OpSumTest, NegativeDimsKeepdim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Float, {1, 3, 1});
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({-1, 0}), r.b(true), r.none(), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {10.5f, 17.0f, 13.0f});
}

TEST(OpSumTest, NoneAndEmptyDimsReduceEverything) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto a = zeros_tensor(ScalarType::Float, {});
  auto b = zeros_tensor(ScalarType::Float, {});
  ASSERT_EQ(
      r.run("aten::sum.IntList_out", {r.tensor(x), r.none(), r.b(false), r.none(), r.tensor(a)}),
      Error::Ok);
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({}), r.b(false), r.none(), r.tensor(b)}),
            Error::Ok);
  expect_close(a.values<float>(), {40.5f});
  expect_close(b.values<float>(), {40.5f});
}

TEST(OpSumTest, IntAndBoolIntoLong) {
  KernelRunner r;
  auto x = int_sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Long, {3});
  ASSERT_EQ(
      r.run("aten::sum.IntList_out", {r.tensor(x), r.int_list({0}), r.b(false),
                                      r.i(static_cast<int64_t>(ScalarType::Long)), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{5, 7, 9}));
  auto b = make_bool({2, 3}, {1, 0, 1, 1, 1, 1});
  auto bout = zeros_tensor(ScalarType::Long, {2});
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(b), r.int_list({1}), r.b(false), r.none(), r.tensor(bout)}),
            Error::Ok);
  EXPECT_EQ(bout.values<int64_t>(), (std::vector<int64_t>{2, 3}));
}

TEST(OpSumTest, FloatIntoLongOutCastsEachElementFirst) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, {0.5f, 0.7f, 1.9f});
  auto out = zeros_tensor(ScalarType::Long, {});
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({0}), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1}));  // as PyTorch
}

TEST(OpSumTest, BadArgumentsFail) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Float, {2, 4});
  EXPECT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({3}), r.b(false), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({1, -2}), r.b(false), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
  auto wrong = static_out(ScalarType::Float, {2, 3});
  EXPECT_NE(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({1}), r.b(false), r.none(), r.tensor(wrong)}),
            Error::Ok);
  EXPECT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({1}), r.b(false),
                   r.i(static_cast<int64_t>(ScalarType::Double)), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpMeanTest, DimsAndAll) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto last = zeros_tensor(ScalarType::Float, {2, 3});
  auto keep = zeros_tensor(ScalarType::Float, {1, 3, 1});
  auto all = zeros_tensor(ScalarType::Float, {});
  ASSERT_EQ(
      r.run("aten::mean.out", {r.tensor(x), r.int_list({2}), r.b(false), r.none(), r.tensor(last)}),
      Error::Ok);
  ASSERT_EQ(r.run("aten::mean.out",
                  {r.tensor(x), r.int_list({0, 2}), r.b(true), r.none(), r.tensor(keep)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::mean.dtype_out", {r.tensor(x), r.none(), r.tensor(all)}), Error::Ok);
  expect_close(last.values<float>(), {0.8125f, 2.625f, 2.3125f, 1.8125f, 1.625f, 0.9375f});
  expect_close(keep.values<float>(), {1.3125f, 2.125f, 1.625f});
  expect_close(all.values<float>(), {1.6875f});
}

TEST(OpMeanTest, IntegerInputNeedsDtype) {
  KernelRunner r;
  auto x = int_sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Float, {});
  const int64_t kFloat = static_cast<int64_t>(ScalarType::Float);
  ASSERT_EQ(r.run("aten::mean.dtype_out", {r.tensor(x), r.i(kFloat), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {3.5f});
  // PyTorch: mean(): could not infer output dtype (integer input, no dtype).
  EXPECT_EQ(r.run("aten::mean.dtype_out", {r.tensor(x), r.none(), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpProdTest, AllAndDim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto all = zeros_tensor(ScalarType::Float, {});
  auto dim = zeros_tensor(ScalarType::Float, {2, 4});
  ASSERT_EQ(r.run("aten::prod.out", {r.tensor(x), r.none(), r.tensor(all)}), Error::Ok);
  ASSERT_EQ(r.run("aten::prod.int_out", {r.tensor(x), r.i(1), r.b(false), r.none(), r.tensor(dim)}),
            Error::Ok);
  expect_close(all.values<float>(), {0.0f});
  expect_close(dim.values<float>(), {1.5f, -88.0f, 19.5f, 7.0f, 54.0f, 3.5f, 0.0f, -3.75f});
}

TEST(OpProdTest, IntKeepdimIntoLong) {
  KernelRunner r;
  auto x = int_sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Long, {2, 1});
  ASSERT_EQ(r.run("aten::prod.int_out", {r.tensor(x), r.i(1), r.b(true), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{6, 120}));
}

TEST(OpVarTest, CorrectionVariants) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto d1 = zeros_tensor(ScalarType::Float, {2, 4});
  auto all = zeros_tensor(ScalarType::Float, {});
  auto keep = zeros_tensor(ScalarType::Float, {1, 3, 1});
  ASSERT_EQ(r.run("aten::var.correction_out",
                  {r.tensor(x), r.int_list({1}), r.none(), r.b(false), r.tensor(d1)}),
            Error::Ok);
  ASSERT_EQ(
      r.run("aten::var.correction_out", {r.tensor(x), r.none(), r.i(0), r.b(false), r.tensor(all)}),
      Error::Ok);
  ASSERT_EQ(r.run("aten::var.correction_out",
                  {r.tensor(x), r.int_list({0, 2}), r.i(2), r.b(true), r.tensor(keep)}),
            Error::Ok);
  expect_close(d1.values<float>(),
               {3.6458332538604736f, 27.08333396911621f, 21.4375f, 11.583333015441895f,
                14.333333015441895f, 7.583333492279053f, 12.25f, 8.395833015441895f});
  expect_close(all.values<float>(), {13.37109375f});
  expect_close(keep.values<float>(), {16.34895896911621f, 26.89583396911621f, 9.791666984558105f});
}

TEST(OpVarTest, IntegerInputIsRejected) {
  KernelRunner r;
  auto x = int_sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Int, {});
  EXPECT_EQ(r.run("aten::var.correction_out",
                  {r.tensor(x), r.none(), r.none(), r.b(false), r.tensor(out)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
