// aten::bitwise_left_shift / bitwise_right_shift (Tensor_out and
// Tensor_Scalar_out). Expected values: torch 2.15.0 eager on x86-64 CPU,
// torch.bitwise_left_shift(a, b) / torch.bitwise_right_shift(a, b) on the
// inputs of each case (shift counts below 0 or at least the bit width give 0
// for left shifts and the sign fill for right shifts).
#include <cstdint>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

template <typename T>
void expect_shifts(std::vector<T> a, std::vector<T> b, std::vector<T> left, std::vector<T> right) {
  const int32_t n = static_cast<int32_t>(a.size());
  HostTensor ta = make_tensor<T>({n}, a);
  HostTensor tb = make_tensor<T>({n}, b);
  HostTensor lo = zeros_tensor(ta.dtype(), {n});
  HostTensor ro = zeros_tensor(ta.dtype(), {n});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::bitwise_left_shift.Tensor_out", {r.tensor(ta), r.tensor(tb), r.tensor(lo)}),
      Error::Ok);
  EXPECT_EQ(lo.values<T>(), left);
  KernelRunner r2;
  ASSERT_EQ(
      r2.run("aten::bitwise_right_shift.Tensor_out", {r2.tensor(ta), r2.tensor(tb), r2.tensor(ro)}),
      Error::Ok);
  EXPECT_EQ(ro.values<T>(), right);
}

TEST(OpBitwiseShiftTest, Int32CountsOutOfRange) {
  // a = [-5, -1, 0, 1, 100, 7], b = [-1, 0, 1, 31, 32, 40] (int32)
  expect_shifts<int32_t>({-5, -1, 0, 1, 100, 7}, {-1, 0, 1, 31, 32, 40},
                         {0, -1, 0, INT32_MIN, 0, 0}, {-1, -1, 0, 0, 0, 0});
}

TEST(OpBitwiseShiftTest, Int8WrapsAndSignFills) {
  // a = [-5, 64, 100, -128, 3, 1], b = [1, 1, 7, 1, 8, -3] (int8)
  expect_shifts<int8_t>({-5, 64, 100, -128, 3, 1}, {1, 1, 7, 1, 8, -3}, {-10, -128, 0, 0, 0, 0},
                        {-3, 32, 0, -64, 0, 0});
}

TEST(OpBitwiseShiftTest, Uint8CountsAbove127AreNegative) {
  // a = [1, 3, 255, 128, 7, 200], b = [0, 7, 1, 200, 8, 3] (uint8)
  expect_shifts<uint8_t>({1, 3, 255, 128, 7, 200}, {0, 7, 1, 200, 8, 3}, {1, 128, 254, 0, 0, 64},
                         {1, 0, 127, 0, 0, 25});
}

TEST(OpBitwiseShiftTest, Int16AndInt64) {
  // a = [-32768, 12345, -1], b = [15, 3, 16] (int16)
  expect_shifts<int16_t>({-32768, 12345, -1}, {15, 3, 16}, {0, -32312, 0}, {-1, 1543, -1});
  // a = [-5, 3, 2**62, -2**63], b = [63, 64, 1, 70] (int64)
  expect_shifts<int64_t>({-5, 3, int64_t{1} << 62, INT64_MIN}, {63, 64, 1, 70},
                         {INT64_MIN, 0, INT64_MIN, 0}, {-1, 0, int64_t{1} << 61, -1});
}

TEST(OpBitwiseShiftTest, BroadcastsAndPromotes) {
  // x = int8 [[1], [-8]], y = int64 [0, 2, 62]: the result is int64 [2, 3]
  HostTensor x = make_tensor<int8_t>({2, 1}, {1, -8});
  HostTensor y = make_tensor<int64_t>({3}, {0, 2, 62});
  HostTensor out = zeros_tensor(ScalarType::Long, {2, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::bitwise_left_shift.Tensor_out", {r.tensor(x), r.tensor(y), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 4, int64_t{1} << 62, -8, -32, 0}));
  KernelRunner r2;
  ASSERT_EQ(
      r2.run("aten::bitwise_right_shift.Tensor_out", {r2.tensor(x), r2.tensor(y), r2.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 0, 0, -8, -2, -1}));
  // bool [True, False] << int32 [3, 1] is int32 [8, 0]
  HostTensor b = make_bool({2}, {1, 0});
  HostTensor c = make_tensor<int32_t>({2}, {3, 1});
  HostTensor iout = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r3;
  ASSERT_EQ(
      r3.run("aten::bitwise_left_shift.Tensor_out", {r3.tensor(b), r3.tensor(c), r3.tensor(iout)}),
      Error::Ok);
  EXPECT_EQ(iout.values<int32_t>(), (std::vector<int32_t>{8, 0}));
}

TEST(OpBitwiseShiftTest, ScalarCounts) {
  // x = torch.tensor([-5, 1, 100], dtype=torch.int32); the count is read as int32
  // (2**40 wraps to 0).
  struct Case {
    int64_t s;
    std::vector<int32_t> left, right;
  };
  const std::vector<Case> cases = {{3, {-40, 8, 800}, {-1, 0, 12}},
                                   {32, {0, 0, 0}, {-1, 0, 0}},
                                   {-1, {0, 0, 0}, {-1, 0, 0}},
                                   {int64_t{1} << 40, {-5, 1, 100}, {-5, 1, 100}}};
  for (const Case& c : cases) {
    HostTensor x = make_tensor<int32_t>({3}, {-5, 1, 100});
    HostTensor out = zeros_tensor(ScalarType::Int, {3});
    KernelRunner r;
    ASSERT_EQ(
        r.run("aten::bitwise_left_shift.Tensor_Scalar_out", {r.tensor(x), r.i(c.s), r.tensor(out)}),
        Error::Ok);
    EXPECT_EQ(out.values<int32_t>(), c.left) << "shift " << c.s;
    KernelRunner r2;
    ASSERT_EQ(r2.run("aten::bitwise_right_shift.Tensor_Scalar_out",
                     {r2.tensor(x), r2.i(c.s), r2.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(out.values<int32_t>(), c.right) << "shift " << c.s;
  }
  // A bool tensor with an int count promotes to int64:
  // torch.bitwise_left_shift(torch.tensor([True, False, True]), 2) = [4, 0, 4]
  HostTensor b = make_bool({3}, {1, 0, 1});
  HostTensor lout = zeros_tensor(ScalarType::Long, {3});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::bitwise_left_shift.Tensor_Scalar_out", {r.tensor(b), r.i(2), r.tensor(lout)}),
      Error::Ok);
  EXPECT_EQ(lout.values<int64_t>(), (std::vector<int64_t>{4, 0, 4}));
}

TEST(OpBitwiseShiftTest, ZeroDimEmptyAndFloatOut) {
  // torch.bitwise_left_shift(torch.tensor(3, dtype=torch.int16), torch.tensor(2,
  // dtype=torch.int16))
  HostTensor x = make_tensor<int16_t>({}, {3});
  HostTensor y = make_tensor<int16_t>({}, {2});
  HostTensor out = zeros_tensor(ScalarType::Short, {});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::bitwise_left_shift.Tensor_out", {r.tensor(x), r.tensor(y), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int16_t>(), (std::vector<int16_t>{12}));
  HostTensor e = zeros_tensor(ScalarType::Int, {0, 2});
  HostTensor eout = zeros_tensor(ScalarType::Int, {0, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::bitwise_right_shift.Tensor_Scalar_out",
                   {r2.tensor(e), r2.i(1), r2.tensor(eout)}),
            Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{0, 2}));
  // An integer result may go into a floating out: aten.bitwise_left_shift.Tensor_out(
  //   torch.tensor([1, 2]), torch.tensor([1, 2]), out=torch.zeros(2)) = [2., 8.]
  HostTensor a = make_tensor<int64_t>({2}, {1, 2});
  HostTensor fout = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r3;
  ASSERT_EQ(
      r3.run("aten::bitwise_left_shift.Tensor_out", {r3.tensor(a), r3.tensor(a), r3.tensor(fout)}),
      Error::Ok);
  EXPECT_EQ(fout.values<float>(), (std::vector<float>{2.0f, 8.0f}));
}

TEST(OpBitwiseShiftTest, RefusesFloatBoolAndNarrowingOut) {
  // "lshift_cpu" not implemented for 'Float' / 'Bool'.
  HostTensor f = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor fout = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r;
  EXPECT_EQ(
      r.prepare("aten::bitwise_left_shift.Tensor_out", {r.tensor(f), r.tensor(f), r.tensor(fout)}),
      Error::InvalidType);
  HostTensor b = make_bool({2}, {1, 0});
  HostTensor bout = zeros_tensor(ScalarType::Bool, {2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::bitwise_right_shift.Tensor_out",
                       {r2.tensor(b), r2.tensor(b), r2.tensor(bout)}),
            Error::InvalidType);
  // An int tensor with a float count promotes to Float: refused.
  HostTensor i = make_tensor<int32_t>({2}, {1, 2});
  HostTensor iout = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::bitwise_left_shift.Tensor_Scalar_out",
                       {r3.tensor(i), r3.d(1.5), r3.tensor(iout)}),
            Error::InvalidType);
  // A bool tensor with a bool count stays Bool: refused.
  KernelRunner r4;
  EXPECT_EQ(r4.prepare("aten::bitwise_right_shift.Tensor_Scalar_out",
                       {r4.tensor(b), r4.b(true), r4.tensor(bout)}),
            Error::InvalidType);
  // A Long result cannot go into a Bool out (torch.can_cast(torch.int64, torch.bool) is False).
  HostTensor l = make_tensor<int64_t>({2}, {1, 2});
  KernelRunner r5;
  EXPECT_EQ(r5.prepare("aten::bitwise_left_shift.Tensor_out",
                       {r5.tensor(l), r5.tensor(l), r5.tensor(bout)}),
            Error::InvalidType);
  // Shapes that do not broadcast fail at run.
  HostTensor a3 = make_tensor<int32_t>({3}, {1, 2, 3});
  HostTensor out3 = zeros_tensor(ScalarType::Int, {3});
  KernelRunner r6;
  EXPECT_EQ(
      r6.run("aten::bitwise_left_shift.Tensor_out", {r6.tensor(a3), r6.tensor(i), r6.tensor(out3)}),
      Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
