// aten::div.Scalar_mode_out. Expected values: torch 2.15.0 eager on CPU,
// torch.div(x, s, rounding_mode=m) on the inputs of each case.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr const char* kOp = "aten::div.Scalar_mode_out";

TEST(OpDivScalarModeTest, Int32TruncAndFloor) {
  // x = torch.tensor([7, -7, 6, -1, 0], dtype=torch.int32)
  struct Case {
    int64_t s;
    const char* mode;
    std::vector<int32_t> expected;
  };
  const std::vector<Case> cases = {
      {2, "trunc", {3, -3, 3, 0, 0}},   {2, "floor", {3, -4, 3, -1, 0}},
      {-2, "trunc", {-3, 3, -3, 0, 0}}, {-2, "floor", {-4, 3, -3, 0, 0}},
      {3, "trunc", {2, -2, 2, 0, 0}},   {3, "floor", {2, -3, 2, -1, 0}},
  };
  for (const Case& c : cases) {
    HostTensor x = make_tensor<int32_t>({5}, {7, -7, 6, -1, 0});
    HostTensor out = zeros_tensor(ScalarType::Int, {5});
    KernelRunner r;
    ASSERT_EQ(r.run(kOp, {r.tensor(x), r.i(c.s), r.str(c.mode), r.tensor(out)}), Error::Ok);
    EXPECT_EQ(out.values<int32_t>(), c.expected) << c.s << " " << c.mode;
  }
}

TEST(OpDivScalarModeTest, NoModeIsTrueDivision) {
  // torch.div(x, 2) with x int32 is float32 [3.5, -3.5, 3.0, -0.5, 0.0]
  HostTensor x = make_tensor<int32_t>({5}, {7, -7, 6, -1, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {5});
  KernelRunner r;
  ASSERT_EQ(r.run(kOp, {r.tensor(x), r.i(2), r.none(), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3.5f, -3.5f, 3.0f, -0.5f, 0.0f}));
  // Without a mode an Int out is refused (the result is Float).
  HostTensor iout = zeros_tensor(ScalarType::Int, {5});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare(kOp, {r2.tensor(x), r2.i(2), r2.none(), r2.tensor(iout)}),
            Error::InvalidType);
}

TEST(OpDivScalarModeTest, FloatModesAndDivisionByZero) {
  // xf = torch.tensor([7.5, -7.5, 1.0, -2.0, 0.0])
  struct Case {
    double s;
    const char* mode;  // nullptr: None
    std::vector<float> expected;
  };
  const float inf = INFINITY;
  const std::vector<Case> cases = {
      {2.0, "trunc", {3.0f, -3.0f, 0.0f, -1.0f, 0.0f}},
      {2.0, "floor", {3.0f, -4.0f, 0.0f, -1.0f, 0.0f}},
      {-2.5, "trunc", {-3.0f, 3.0f, -0.0f, 0.0f, -0.0f}},
      {-2.5, "floor", {-3.0f, 3.0f, -1.0f, 0.0f, -0.0f}},
      {-2.5, nullptr, {-3.0f, 3.0f, -0.4000000059604645f, 0.800000011920929f, -0.0f}},
      {0.0, "trunc", {inf, -inf, inf, -inf, NAN}},
      {0.0, "floor", {inf, -inf, inf, -inf, NAN}},
  };
  for (const Case& c : cases) {
    HostTensor x = make_tensor<float>({5}, {7.5f, -7.5f, 1.0f, -2.0f, 0.0f});
    HostTensor out = zeros_tensor(ScalarType::Float, {5});
    KernelRunner r;
    ASSERT_EQ(r.run(kOp, {r.tensor(x), r.d(c.s), c.mode ? r.str(c.mode) : r.none(), r.tensor(out)}),
              Error::Ok);
    const std::vector<float> got = out.values<float>();
    expect_close_special(got, c.expected, 1e-6, 0.0);
    for (size_t i = 0; i < got.size(); ++i) {
      if (c.expected[i] == 0.0f) {
        EXPECT_EQ(std::signbit(got[i]), std::signbit(c.expected[i])) << "sign of zero at " << i;
      }
    }
  }
}

TEST(OpDivScalarModeTest, IntegerDivisionByZeroFails) {
  // torch.div(torch.tensor([1, 2]), 0, rounding_mode='trunc' / 'floor'): ZeroDivisionError
  for (const char* mode : {"trunc", "floor"}) {
    HostTensor x = make_tensor<int64_t>({2}, {1, 2});
    HostTensor out = zeros_tensor(ScalarType::Long, {2});
    KernelRunner r;
    EXPECT_EQ(r.run(kOp, {r.tensor(x), r.i(0), r.str(mode), r.tensor(out)}), Error::InvalidArgument)
        << mode;
  }
  // The divisor is read in the int8 compute dtype: 256 wraps to 0, so
  // torch.div(torch.tensor([5], dtype=torch.int8), 256, rounding_mode='trunc') raises too.
  HostTensor x8 = make_tensor<int8_t>({1}, {5});
  HostTensor out8 = zeros_tensor(ScalarType::Char, {1});
  KernelRunner r;
  EXPECT_EQ(r.run(kOp, {r.tensor(x8), r.i(256), r.str("trunc"), r.tensor(out8)}),
            Error::InvalidArgument);
}

TEST(OpDivScalarModeTest, PromotionBoolByteDoubleAndZeroDim) {
  // torch.div(torch.tensor([7, -7]), 2.5, rounding_mode='trunc' / 'floor') is float32
  HostTensor x = make_tensor<int64_t>({2}, {7, -7});
  HostTensor out = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r;
  ASSERT_EQ(r.run(kOp, {r.tensor(x), r.d(2.5), r.str("trunc"), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.0f, -2.0f}));
  KernelRunner r2;
  ASSERT_EQ(r2.run(kOp, {r2.tensor(x), r2.d(2.5), r2.str("floor"), r2.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.0f, -3.0f}));
  // torch.div(torch.tensor([True, False]), -1, rounding_mode='floor') is int64 [-1, 0]
  HostTensor b = make_bool({2}, {1, 0});
  HostTensor lout = zeros_tensor(ScalarType::Long, {2});
  KernelRunner r3;
  ASSERT_EQ(r3.run(kOp, {r3.tensor(b), r3.i(-1), r3.str("floor"), r3.tensor(lout)}), Error::Ok);
  EXPECT_EQ(lout.values<int64_t>(), (std::vector<int64_t>{-1, 0}));
  // torch.div(torch.tensor([200, 7], dtype=torch.uint8), 3, rounding_mode='floor') = [66, 2]
  HostTensor u = make_tensor<uint8_t>({2}, {200, 7});
  HostTensor uout = zeros_tensor(ScalarType::Byte, {2});
  KernelRunner r4;
  ASSERT_EQ(r4.run(kOp, {r4.tensor(u), r4.i(3), r4.str("floor"), r4.tensor(uout)}), Error::Ok);
  EXPECT_EQ(uout.values<uint8_t>(), (std::vector<uint8_t>{66, 2}));
  // torch.div(torch.tensor([1e300, -3.0], dtype=torch.float64), 7.0, rounding_mode='floor')
  HostTensor d = make_tensor<double>({2}, {1e300, -3.0});
  HostTensor dout = zeros_tensor(ScalarType::Double, {2});
  KernelRunner r5;
  ASSERT_EQ(r5.run(kOp, {r5.tensor(d), r5.d(7.0), r5.str("floor"), r5.tensor(dout)}), Error::Ok);
  expect_close(dout.values<double>(), {1.4285714285714286e+299, -1.0}, 1e-15, 0.0);
  // torch.div(torch.tensor(-9), 4, rounding_mode='floor') = -3 (0-d)
  HostTensor z = make_tensor<int64_t>({}, {-9});
  HostTensor zout = zeros_tensor(ScalarType::Long, {});
  KernelRunner r6;
  ASSERT_EQ(r6.run(kOp, {r6.tensor(z), r6.i(4), r6.str("floor"), r6.tensor(zout)}), Error::Ok);
  EXPECT_EQ(zout.values<int64_t>(), (std::vector<int64_t>{-3}));
  // Empty input.
  HostTensor e = zeros_tensor(ScalarType::Float, {2, 0});
  HostTensor eout = zeros_tensor(ScalarType::Float, {2, 0});
  KernelRunner r7;
  ASSERT_EQ(r7.run(kOp, {r7.tensor(e), r7.i(3), r7.str("trunc"), r7.tensor(eout)}), Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{2, 0}));
}

TEST(OpDivScalarModeTest, RefusedAtLoad) {
  HostTensor x = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2});
  // "div expected rounding_mode to be one of None, 'trunc', or 'floor'"
  KernelRunner r;
  EXPECT_EQ(r.prepare(kOp, {r.tensor(x), r.i(2), r.str("round"), r.tensor(out)}),
            Error::InvalidArgument);
  // "div_trunc_cpu" not implemented for 'Bool'
  HostTensor b = make_bool({2}, {1, 0});
  HostTensor bout = zeros_tensor(ScalarType::Bool, {2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare(kOp, {r2.tensor(b), r2.b(true), r2.str("trunc"), r2.tensor(bout)}),
            Error::InvalidType);
  // A Float result into a Long out.
  HostTensor lout = zeros_tensor(ScalarType::Long, {2});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare(kOp, {r3.tensor(x), r3.i(2), r3.str("floor"), r3.tensor(lout)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
