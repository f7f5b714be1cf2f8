// Tests for aten::clone.out, dim_order_ops::_clone_dim_order.out,
// aten::copy.out and aten::copy_. Expected values were computed with PyTorch
// eager (torch.ops.aten.*, Tensor.copy_, CPU).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpCloneTest, ContiguousAndNoneFormat) {
  KernelRunner r;
  auto x = make_tensor<int16_t>({2, 3}, iota<int16_t>(6));
  auto out = zeros_tensor(ScalarType::Short, {2, 3});
  ASSERT_EQ(r.run("aten::clone.out", {r.tensor(x), r.none(), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int16_t>(), iota<int16_t>(6));
  ASSERT_EQ(r.run("aten::clone.out", {r.tensor(x), r.i(0), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int16_t>(), iota<int16_t>(6));
  EXPECT_EQ(r.run("aten::clone.out", {r.tensor(x), r.i(9), r.tensor(out)}), Error::InvalidArgument);
}

TEST(OpCloneTest, IntoChannelsLastOut) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 2, 2, 3}, iota(12));
  auto out = make_tensor<float>({1, 2, 2, 3}, std::vector<float>(12), {0, 2, 3, 1});
  ASSERT_EQ(r.run("aten::clone.out", {r.tensor(x), r.i(2), r.tensor(out)}), Error::Ok);
  // PyTorch eager: storage of arange(12).reshape(1,2,2,3).contiguous(channels_last)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f,
                                                     4.0f, 10.0f, 5.0f, 11.0f}));
}

TEST(OpCloneDimOrderTest, ToChannelsLastAndBack) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 2, 2, 3}, iota(12));
  auto cl = make_tensor<float>({1, 2, 2, 3}, std::vector<float>(12), {0, 2, 3, 1});
  ASSERT_EQ(r.run("dim_order_ops::_clone_dim_order.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(cl)}),
            Error::Ok);
  // PyTorch eager: storage of arange(12).reshape(1,2,2,3).contiguous(channels_last)
  EXPECT_EQ(cl.values<float>(), (std::vector<float>{0.0f, 6.0f, 1.0f, 7.0f, 2.0f, 8.0f, 3.0f, 9.0f,
                                                    4.0f, 10.0f, 5.0f, 11.0f}));
  auto back = zeros_tensor(ScalarType::Float, {1, 2, 2, 3});
  ASSERT_EQ(r.run("dim_order_ops::_clone_dim_order.out",
                  {r.tensor(cl), r.b(false), r.none(), r.tensor(back)}),
            Error::Ok);
  EXPECT_EQ(back.values<float>(), iota(12));
}

TEST(OpCloneDimOrderTest, MismatchedDimOrderFails) {
  KernelRunner r;
  auto x = make_tensor<float>({1, 2, 2, 3}, iota(12));
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 2, 3});
  EXPECT_EQ(r.run("dim_order_ops::_clone_dim_order.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpCopyTest, BroadcastSrc) {
  KernelRunner r;
  auto self = make_tensor<float>({2, 3}, std::vector<float>(6));
  auto src = make_tensor<float>({3}, {1.5f, -2.5f, 3.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: copy(zeros(2, 3), tensor([1.5, -2.5, 3.0]))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.5f, -2.5f, 3.0f, 1.5f, -2.5f, 3.0f}));
}

TEST(OpCopyTest, FloatToIntTruncates) {
  KernelRunner r;
  auto self = make_tensor<int32_t>({4}, std::vector<int32_t>(4));
  auto src = make_tensor<float>({4}, {1.9f, -1.9f, 300.5f, -0.5f});
  auto out = zeros_tensor(ScalarType::Int, {4});
  ASSERT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: copy(zeros(4, int32), tensor([1.9, -1.9, 300.5, -0.5]))
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, -1, 300, 0}));
}

TEST(OpCopyTest, NonBroadcastableFails) {
  KernelRunner r;
  auto self = make_tensor<float>({2, 3}, std::vector<float>(6));
  auto src = make_tensor<float>({2}, {1.f, 2.f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpCopyInplaceTest, WritesSelfWithConversion) {
  KernelRunner r;
  auto self = make_tensor<uint8_t>({3}, std::vector<uint8_t>(3));
  auto src = make_tensor<float>({3}, {-1.f, 255.f, 256.f});
  ASSERT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(src), r.b(false)}), Error::Ok);
  // PyTorch eager: zeros(3, uint8).copy_(tensor([-1., 255., 256.]))
  EXPECT_EQ(self.values<uint8_t>(), (std::vector<uint8_t>{255, 255, 0}));
}

TEST(OpCopyInplaceTest, BoolSourceAndScalarBroadcast) {
  KernelRunner r;
  auto self = make_tensor<float>({3}, std::vector<float>(3));
  auto src = zeros_tensor(ScalarType::Bool, {3});
  const uint8_t bits[3] = {1, 0, 1};
  std::memcpy(src.tensor().mutable_data(), bits, sizeof(bits));
  ASSERT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(src), r.b(false)}), Error::Ok);
  // PyTorch eager: zeros(3).copy_(tensor([True, False, True]))
  EXPECT_EQ(self.values<float>(), (std::vector<float>{1.0f, 0.0f, 1.0f}));
  auto scalar = make_tensor<double>({}, {2.25});
  ASSERT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(scalar), r.b(false)}), Error::Ok);
  EXPECT_EQ(self.values<float>(), (std::vector<float>{2.25f, 2.25f, 2.25f}));
}

// ---- Floating to integer through copy_ and copy.out: the same conversion as
// _to_copy (op_to_copy_test.cpp), pinned to PyTorch on x86-64 CPU.
// Expected values: torch 2.15.0+cu132 (CPU capability AVX2),
// torch.zeros(n, dtype=d).copy_(src); identical for 13 and 143 elements.

// One source value and what it becomes in each integer dtype and bool.
struct FloatToIntRow {
  double src;
  int64_t to_long;
  int32_t to_int;
  int16_t to_short;
  int8_t to_char;
  uint8_t to_byte;
  int to_bool;
};

constexpr int64_t kI64Min = INT64_MIN;
constexpr int32_t kI32Min = INT32_MIN;

// Sources stored as float (each value is exact as a float).
const FloatToIntRow kFloatRows[] = {
    {NAN, kI64Min, kI32Min, 0, 0, 0, 1},
    {INFINITY, kI64Min, kI32Min, 0, 0, 0, 1},
    {-INFINITY, kI64Min, kI32Min, 0, 0, 0, 1},
    {3e9, 3000000000, kI32Min, 0, 0, 0, 1},
    {-3e9, -3000000000, kI32Min, 0, 0, 0, 1},
    {70000.5, 70000, 70000, 4464, 112, 112, 1},
    {-70000.5, -70000, -70000, -4464, -112, 144, 1},
    {300.0, 300, 300, 300, 44, 44, 1},
    {-1.0, -1, -1, -1, -1, 255, 1},
    {-129.5, -129, -129, -129, 127, 127, 1},
    {255.5, 255, 255, 255, -1, 255, 1},
    {-0.0, 0, 0, 0, 0, 0, 0},
    {0x1p70, kI64Min, kI32Min, 0, 0, 0, 1},
};
// Sources stored as double: uint8 goes through int64, int8/int16 through int32.
const FloatToIntRow kDoubleRows[] = {
    {4294967301.0, 4294967301, kI32Min, 0, 0, 5, 1},
    {-2147483649.0, -2147483649, kI32Min, 0, 0, 255, 1},
    {2147483647.0, 2147483647, 2147483647, -1, -1, 255, 1},
    {-2147483648.5, -2147483648, kI32Min, 0, 0, 0, 1},
    {9.3e18, kI64Min, kI32Min, 0, 0, 0, 1},
    {NAN, kI64Min, kI32Min, 0, 0, 0, 1},
};

template <typename T, typename Field>
std::vector<T> column(Span<const FloatToIntRow> rows, size_t times, Field field) {
  std::vector<T> out;
  for (size_t t = 0; t < times; ++t) {
    for (const FloatToIntRow& row : rows) out.push_back(static_cast<T>(row.*field));
  }
  return out;
}

// Copies `src` into a zero tensor of `dtype` (copy_ or copy.out) and returns it.
HostTensor copy_into(bool inplace, HostTensor& src, ScalarType dtype) {
  KernelRunner r;
  auto self = zeros_tensor(dtype, src.shape());
  if (inplace) {
    EXPECT_EQ(r.run("aten::copy_", {r.tensor(self), r.tensor(src), r.b(false)}), Error::Ok);
    return self;
  }
  auto out = zeros_tensor(dtype, src.shape());
  EXPECT_EQ(r.run("aten::copy.out", {r.tensor(self), r.tensor(src), r.b(false), r.tensor(out)}),
            Error::Ok);
  return out;
}

template <typename Src>
void expect_copy_float_to_int(Span<const FloatToIntRow> rows) {
  for (bool inplace : {true, false}) {
    for (size_t times : {size_t{1}, size_t{11}}) {
      HostTensor src = make_tensor<Src>({static_cast<int32_t>(rows.size() * times)},
                                        column<Src>(rows, times, &FloatToIntRow::src));
      EXPECT_EQ(copy_into(inplace, src, ScalarType::Long).values<int64_t>(),
                column<int64_t>(rows, times, &FloatToIntRow::to_long));
      EXPECT_EQ(copy_into(inplace, src, ScalarType::Int).values<int32_t>(),
                column<int32_t>(rows, times, &FloatToIntRow::to_int));
      EXPECT_EQ(copy_into(inplace, src, ScalarType::Short).values<int16_t>(),
                column<int16_t>(rows, times, &FloatToIntRow::to_short));
      EXPECT_EQ(copy_into(inplace, src, ScalarType::Char).values<int8_t>(),
                column<int8_t>(rows, times, &FloatToIntRow::to_char));
      EXPECT_EQ(copy_into(inplace, src, ScalarType::Byte).values<uint8_t>(),
                column<uint8_t>(rows, times, &FloatToIntRow::to_byte));
      EXPECT_EQ(copy_into(inplace, src, ScalarType::Bool).values<uint8_t>(),
                column<uint8_t>(rows, times, &FloatToIntRow::to_bool));
    }
  }
}

TEST(OpCopyTest, FloatToIntegerSpecialValuesMatchPyTorch) {
  expect_copy_float_to_int<float>(Span<const FloatToIntRow>(kFloatRows, std::size(kFloatRows)));
}

TEST(OpCopyTest, DoubleToIntegerSpecialValuesMatchPyTorch) {
  expect_copy_float_to_int<double>(Span<const FloatToIntRow>(kDoubleRows, std::size(kDoubleRows)));
}

}  // namespace
}  // namespace testing
}  // namespace etr
