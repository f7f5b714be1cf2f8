// Tests for amax, amin, argmax, argmin, max.dim_max, min.dim_min and any.
// Expected values were computed with PyTorch eager (CPU) from the same inputs.
#include <cmath>
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpAmaxTest, DimKeepdimAndAll) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto mx = zeros_tensor(ScalarType::Float, {2, 4});
  auto mn = zeros_tensor(ScalarType::Float, {2, 3, 1});
  auto all = zeros_tensor(ScalarType::Float, {});
  ASSERT_EQ(r.run("aten::amax.out", {r.tensor(x), r.int_list({1}), r.b(false), r.tensor(mx)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::amin.out", {r.tensor(x), r.int_list({-1}), r.b(true), r.tensor(mn)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::amax.out", {r.tensor(x), r.int_list({}), r.b(false), r.tensor(all)}),
            Error::Ok);
  expect_close(mx.values<float>(), {4.0f, 8.0f, 3.25f, 7.0f, 9.0f, 2.0f, 6.5f, 1.25f});
  expect_close(mn.values<float>(), {-2.0f, -6.0f, -1.0f, -3.5f, -4.0f, -0.5f});
  expect_close(all.values<float>(), {9.0f});
}

TEST(OpAmaxTest, NanPropagates) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 2}, {1.0f, NAN, 2.0f, 3.0f});
  auto out = zeros_tensor(ScalarType::Float, {2});
  ASSERT_EQ(r.run("aten::amax.out", {r.tensor(x), r.int_list({1}), r.b(false), r.tensor(out)}),
            Error::Ok);
  expect_close_special(out.values<float>(), {NAN, 3.0f});
}

TEST(OpAmaxTest, EmptyReductionAndDtypeMismatchFail) {
  KernelRunner r;
  auto x = make_tensor<float>({0, 2}, {});
  auto out = zeros_tensor(ScalarType::Float, {2});
  EXPECT_EQ(r.run("aten::amax.out", {r.tensor(x), r.int_list({0}), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
  auto y = sample_2x3x4();
  auto dout = zeros_tensor(ScalarType::Double, {2, 4});
  EXPECT_EQ(r.run("aten::amax.out", {r.tensor(y), r.int_list({1}), r.b(false), r.tensor(dout)}),
            Error::InvalidType);
}

TEST(OpArgmaxTest, FlattenedAndPerDim) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto all = zeros_tensor(ScalarType::Long, {});
  auto all_keep = zeros_tensor(ScalarType::Long, {1, 1, 1});
  auto d2 = zeros_tensor(ScalarType::Long, {2, 3});
  auto d1 = zeros_tensor(ScalarType::Long, {2, 1, 4});
  ASSERT_EQ(r.run("aten::argmax.out", {r.tensor(x), r.none(), r.b(false), r.tensor(all)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::argmax.out", {r.tensor(x), r.none(), r.b(true), r.tensor(all_keep)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::argmax.out", {r.tensor(x), r.i(2), r.b(false), r.tensor(d2)}), Error::Ok);
  ASSERT_EQ(r.run("aten::argmin.out", {r.tensor(x), r.i(1), r.b(true), r.tensor(d1)}), Error::Ok);
  EXPECT_EQ(all.values<int64_t>(), (std::vector<int64_t>{12}));
  EXPECT_EQ(all_keep.values<int64_t>(), (std::vector<int64_t>{12}));
  EXPECT_EQ(d2.values<int64_t>(), (std::vector<int64_t>{2, 3, 1, 0, 2, 0}));
  EXPECT_EQ(d1.values<int64_t>(), (std::vector<int64_t>{2, 0, 1, 0, 1, 0, 2, 1}));
}

TEST(OpArgmaxTest, TiesPickFirstAndNanWins) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, {3.0f, 1.0f, 3.0f, NAN, 2.0f, NAN});
  auto mx = zeros_tensor(ScalarType::Long, {2});
  auto mn = zeros_tensor(ScalarType::Long, {2});
  ASSERT_EQ(r.run("aten::argmax.out", {r.tensor(x), r.i(1), r.b(false), r.tensor(mx)}), Error::Ok);
  ASSERT_EQ(r.run("aten::argmin.out", {r.tensor(x), r.i(1), r.b(false), r.tensor(mn)}), Error::Ok);
  EXPECT_EQ(mx.values<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(mn.values<int64_t>(), (std::vector<int64_t>{1, 0}));
}

TEST(OpArgmaxTest, NonLongOutAndBadDimFail) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto iout = zeros_tensor(ScalarType::Int, {2, 3});
  EXPECT_EQ(r.run("aten::argmax.out", {r.tensor(x), r.i(2), r.b(false), r.tensor(iout)}),
            Error::InvalidType);
  auto out = zeros_tensor(ScalarType::Long, {2, 3});
  EXPECT_EQ(r.run("aten::argmax.out", {r.tensor(x), r.i(3), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpMaxDimTest, ValuesAndIndices) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto v = zeros_tensor(ScalarType::Float, {2, 4});
  auto i = zeros_tensor(ScalarType::Long, {2, 4});
  ASSERT_EQ(r.run("aten::max.dim_max", {r.tensor(x), r.i(1), r.b(false), r.tensor(v), r.tensor(i)}),
            Error::Ok);
  expect_close(v.values<float>(), {4.0f, 8.0f, 3.25f, 7.0f, 9.0f, 2.0f, 6.5f, 1.25f});
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{1, 2, 0, 1, 0, 1, 1, 2}));
}

TEST(OpMinDimTest, KeepdimValuesAndIndices) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto v = zeros_tensor(ScalarType::Float, {2, 3, 1});
  auto i = zeros_tensor(ScalarType::Long, {2, 3, 1});
  ASSERT_EQ(r.run("aten::min.dim_min", {r.tensor(x), r.i(2), r.b(true), r.tensor(v), r.tensor(i)}),
            Error::Ok);
  expect_close(v.values<float>(), {-2.0f, -6.0f, -1.0f, -3.5f, -4.0f, -0.5f});
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{1, 2, 2, 1, 3, 1}));
}

TEST(OpMaxDimTest, IntTiesPickFirst) {
  KernelRunner r;
  auto x = make_tensor<int32_t>({2, 3}, {2, 7, 7, -1, -5, -5});
  auto v = zeros_tensor(ScalarType::Int, {2});
  auto i = zeros_tensor(ScalarType::Long, {2});
  ASSERT_EQ(r.run("aten::max.dim_max", {r.tensor(x), r.i(1), r.b(false), r.tensor(v), r.tensor(i)}),
            Error::Ok);
  EXPECT_EQ(v.values<int32_t>(), (std::vector<int32_t>{7, -1}));
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{1, 0}));
}

TEST(OpMaxDimTest, WrongIndicesShapeFails) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto v = zeros_tensor(ScalarType::Float, {2, 4});
  auto i = static_out(ScalarType::Long, {2, 3});
  EXPECT_NE(r.run("aten::max.dim_max", {r.tensor(x), r.i(1), r.b(false), r.tensor(v), r.tensor(i)}),
            Error::Ok);
}

TEST(OpAnyTest, AllDimAndDims) {
  KernelRunner r;
  auto y = make_tensor<float>({2, 3}, {0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f});
  auto all = static_out(ScalarType::Bool, {});
  auto d1 = static_out(ScalarType::Bool, {2});
  auto d0 = static_out(ScalarType::Bool, {1, 3});
  ASSERT_EQ(r.run("aten::any.all_out", {r.tensor(y), r.tensor(all)}), Error::Ok);
  ASSERT_EQ(r.run("aten::any.out", {r.tensor(y), r.i(1), r.b(false), r.tensor(d1)}), Error::Ok);
  ASSERT_EQ(r.run("aten::any.dims_out", {r.tensor(y), r.int_list({0}), r.b(true), r.tensor(d0)}),
            Error::Ok);
  EXPECT_EQ(bool_values(all), (std::vector<int>{1}));
  EXPECT_EQ(bool_values(d1), (std::vector<int>{1, 0}));
  EXPECT_EQ(bool_values(d0), (std::vector<int>{0, 0, 1}));
}

TEST(OpAnyTest, EmptyDimListReducesNothingAndByteOut) {
  KernelRunner r;
  auto y = make_tensor<float>({1, 2}, {0.5f, 0.0f});
  auto same = static_out(ScalarType::Bool, {1, 2});
  ASSERT_EQ(r.run("aten::any.dims_out", {r.tensor(y), r.int_list({}), r.b(false), r.tensor(same)}),
            Error::Ok);
  EXPECT_EQ(bool_values(same), (std::vector<int>{1, 0}));  // PyTorch: [[True, False]]
  auto u = make_tensor<uint8_t>({1, 2}, {2, 0});
  auto out = zeros_tensor(ScalarType::Byte, {});
  ASSERT_EQ(r.run("aten::any.all_out", {r.tensor(u), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<uint8_t>(), (std::vector<uint8_t>{1}));
}

TEST(OpAnyTest, FloatOutFails) {
  KernelRunner r;
  auto y = make_tensor<float>({2}, {0.0f, 1.0f});
  auto out = zeros_tensor(ScalarType::Float, {});
  EXPECT_EQ(r.run("aten::any.all_out", {r.tensor(y), r.tensor(out)}), Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
