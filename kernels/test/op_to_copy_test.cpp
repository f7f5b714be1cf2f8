// Tests for aten::_to_copy.out and dim_order_ops::_to_dim_order_copy.out.
// Expected values were computed with Tensor.to(dtype) in PyTorch eager (CPU,
// x86) from the same inputs.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor floats() {
  return make_tensor<float>({2, 3}, {-1.0f, 300.0f, -129.0f, 2.7f, -2.7f, NAN});
}

TEST(OpToCopyTest, FloatToIntegersWrapLikePyTorch) {
  KernelRunner r;
  auto x = floats();
  auto u8 = zeros_tensor(ScalarType::Byte, {2, 3});
  auto i8 = zeros_tensor(ScalarType::Char, {2, 3});
  auto i32 = zeros_tensor(ScalarType::Int, {2, 3});
  auto b = static_out(ScalarType::Bool, {2, 3});
  for (HostTensor* out : {&u8, &i8, &i32, &b}) {
    ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.none(), r.tensor(*out)}),
              Error::Ok);
  }
  EXPECT_EQ(u8.values<uint8_t>(), (std::vector<uint8_t>{255, 44, 127, 2, 254, 0}));
  EXPECT_EQ(i8.values<int8_t>(), (std::vector<int8_t>{-1, 44, 127, 2, -2, 0}));
  EXPECT_EQ(i32.values<int32_t>(), (std::vector<int32_t>{-1, 300, -129, 2, -2, INT32_MIN}));
  EXPECT_EQ(bool_values(b), (std::vector<int>{1, 1, 1, 1, 1, 1}));
}

TEST(OpToCopyTest, WideningAndNarrowingFloats) {
  KernelRunner r;
  auto l = make_tensor<int64_t>({3}, {1, -2, int64_t{1} << 40});
  auto f = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(l), r.b(false), r.none(), r.tensor(f)}),
            Error::Ok);
  expect_close(f.values<float>(), {1.0f, -2.0f, 1099511627776.0f});
  auto big = make_tensor<double>({3}, {1e300, -1e300, 3.5e38});
  auto fb = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(big), r.b(false), r.none(), r.tensor(fb)}),
            Error::Ok);
  expect_close_special(fb.values<float>(), {INFINITY, -INFINITY, INFINITY});
}

TEST(OpToCopyTest, ShapeMismatchFails) {
  KernelRunner r;
  auto x = floats();
  auto out = static_out(ScalarType::Int, {3, 2});
  EXPECT_NE(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  auto out2 = zeros_tensor(ScalarType::Int, {2, 3});
  EXPECT_EQ(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.i(7), r.tensor(out2)}),
            Error::InvalidArgument);
}

// ---- Floating to integer, pinned to PyTorch on x86-64 CPU.
// Expected values: torch 2.15.0+cu132 (CPU capability AVX2), x.to(dtype) on
// the inputs below; the same inputs tiled to 66+ elements (vectorized path)
// and Tensor.copy_ give identical values.

const std::vector<float> kFloatInputs = {NAN,     INFINITY, -INFINITY, 3e9f,   -3e9f,
                                         1e19f,   70000.5f, -70000.5f, 300.0f, -1.0f,
                                         -129.7f, 255.9f,   -0.0f};
const std::vector<double> kDoubleInputs = {4294967301.0,  -2147483649.0, 2147483647.0,
                                           -2147483648.5, 9.3e18,        NAN};
constexpr int64_t kI64Min = INT64_MIN;
constexpr int32_t kI32Min = INT32_MIN;

// kFloatInputs.to(dtype)
const std::vector<int64_t> kFloatToLong = {kI64Min, kI64Min, kI64Min, 3000000000, -3000000000,
                                           kI64Min, 70000,   -70000,  300,        -1,
                                           -129,    255,     0};
const std::vector<int32_t> kFloatToInt = {
    kI32Min, kI32Min, kI32Min, kI32Min, kI32Min, kI32Min, 70000, -70000, 300, -1, -129, 255, 0};
const std::vector<int16_t> kFloatToShort = {0, 0, 0, 0, 0, 0, 4464, -4464, 300, -1, -129, 255, 0};
const std::vector<int8_t> kFloatToChar = {0, 0, 0, 0, 0, 0, 112, -112, 44, -1, 127, -1, 0};
const std::vector<uint8_t> kFloatToByte = {0, 0, 0, 0, 0, 0, 112, 144, 44, 255, 127, 255, 0};
const std::vector<int> kFloatToBool = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
// kDoubleInputs.to(dtype): uint8 goes through int64, int8/int16 through int32.
const std::vector<int64_t> kDoubleToLong = {4294967301,  -2147483649, 2147483647,
                                            -2147483648, kI64Min,     kI64Min};
const std::vector<int32_t> kDoubleToInt = {kI32Min, kI32Min, 2147483647, kI32Min, kI32Min, kI32Min};
const std::vector<int16_t> kDoubleToShort = {0, 0, -1, 0, 0, 0};
const std::vector<int8_t> kDoubleToChar = {0, 0, -1, 0, 0, 0};
const std::vector<uint8_t> kDoubleToByte = {5, 255, 255, 0, 0, 0};
const std::vector<int> kDoubleToBool = {1, 1, 1, 1, 1, 1};

template <typename T>
std::vector<T> tiled(const std::vector<T>& v, size_t times) {
  std::vector<T> out;
  for (size_t i = 0; i < times; ++i) out.insert(out.end(), v.begin(), v.end());
  return out;
}

// Runs `op` from x into a new 1-D tensor of `dtype` and returns the out tensor.
HostTensor convert_with(const char* op, HostTensor& x, ScalarType dtype) {
  KernelRunner r;
  auto out = zeros_tensor(dtype, x.shape());
  EValue* last = std::string(op) == "aten::_to_copy.out" ? r.none() : r.int_list({0});
  EXPECT_EQ(r.run(op, {r.tensor(x), r.b(false), last, r.tensor(out)}), Error::Ok) << op;
  return out;
}

template <typename In>
void expect_float_to_int(const char* op, const std::vector<In>& in, size_t times,
                         const std::vector<int64_t>& l, const std::vector<int32_t>& i,
                         const std::vector<int16_t>& s, const std::vector<int8_t>& c,
                         const std::vector<uint8_t>& b, const std::vector<int>& z) {
  auto x = make_tensor<In>({static_cast<int32_t>(in.size() * times)}, tiled(in, times));
  EXPECT_EQ(convert_with(op, x, ScalarType::Long).template values<int64_t>(), tiled(l, times));
  EXPECT_EQ(convert_with(op, x, ScalarType::Int).template values<int32_t>(), tiled(i, times));
  EXPECT_EQ(convert_with(op, x, ScalarType::Short).template values<int16_t>(), tiled(s, times));
  EXPECT_EQ(convert_with(op, x, ScalarType::Char).template values<int8_t>(), tiled(c, times));
  EXPECT_EQ(convert_with(op, x, ScalarType::Byte).template values<uint8_t>(), tiled(b, times));
  HostTensor bools = convert_with(op, x, ScalarType::Bool);
  EXPECT_EQ(bool_values(bools), tiled(z, times));
}

TEST(OpToCopyTest, FloatToIntegerSpecialValuesMatchPyTorch) {
  for (const char* op : {"aten::_to_copy.out", "dim_order_ops::_to_dim_order_copy.out"}) {
    for (size_t times : {size_t{1}, size_t{11}}) {  // 13 and 143 elements
      expect_float_to_int(op, kFloatInputs, times, kFloatToLong, kFloatToInt, kFloatToShort,
                          kFloatToChar, kFloatToByte, kFloatToBool);
    }
  }
}

TEST(OpToCopyTest, DoubleToIntegerSpecialValuesMatchPyTorch) {
  for (const char* op : {"aten::_to_copy.out", "dim_order_ops::_to_dim_order_copy.out"}) {
    for (size_t times : {size_t{1}, size_t{11}}) {  // 6 and 66 elements
      expect_float_to_int(op, kDoubleInputs, times, kDoubleToLong, kDoubleToInt, kDoubleToShort,
                          kDoubleToChar, kDoubleToByte, kDoubleToBool);
    }
  }
}

TEST(OpToDimOrderCopyTest, CastsLongToFloat) {
  KernelRunner r;
  auto x = make_tensor<int64_t>({2, 3}, {3, -4, 5, 6, 7, -8});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 1}), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {3.0f, -4.0f, 5.0f, 6.0f, 7.0f, -8.0f});
}

TEST(OpToDimOrderCopyTest, WritesChannelsLastOut) {
  KernelRunner r;
  // NCHW [1, 2, 2, 2] -> NHWC memory (dim order 0, 2, 3, 1).
  auto x = make_tensor<float>({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto out = make_tensor<float>({1, 2, 2, 2}, std::vector<float>(8, 0.0f), {0, 2, 3, 1});
  ASSERT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({0, 2, 3, 1}), r.tensor(out)}),
            Error::Ok);
  // Memory of x.to(memory_format=torch.channels_last).
  expect_close(out.values<float>(), {0, 4, 1, 5, 2, 6, 3, 7});
}

TEST(OpToDimOrderCopyTest, MismatchedDimOrderFails) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("dim_order_ops::_to_dim_order_copy.out",
                  {r.tensor(x), r.b(false), r.int_list({1, 0}), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
