// Tests for aten::arange.out and aten::arange.start_out. Expected values were
// computed with PyTorch eager (torch.ops.aten.arange, CPU).
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpArangeTest, EndOnly) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Float, {8});
  ASSERT_EQ(r.run("aten::arange.out", {r.i(5), r.tensor(out)}), Error::Ok);
  // PyTorch eager: arange(5, dtype=float32)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f}));
}

TEST(OpArangeTest, FloatStep) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Float, {8});
  ASSERT_EQ(r.run("aten::arange.start_out", {r.d(1.0), r.d(2.0), r.d(0.3), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: arange(1.0, 2.0, 0.3, dtype=float32)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.0f, 1.29999995f, 1.60000002f, 1.89999998f}));
}

TEST(OpArangeTest, NegativeIntegerStep) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Long, {8});
  ASSERT_EQ(r.run("aten::arange.start_out", {r.i(10), r.i(-3), r.i(-4), r.tensor(out)}), Error::Ok);
  // PyTorch eager: arange(10, -3, -4, dtype=int64)
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{10, 6, 2, -2}));
}

TEST(OpArangeTest, Double) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Double, {8});
  ASSERT_EQ(r.run("aten::arange.start_out", {r.i(-1), r.i(1), r.d(0.25), r.tensor(out)}),
            Error::Ok);
  // PyTorch eager: arange(-1, 1, 0.25, dtype=float64)
  EXPECT_EQ(out.values<double>(),
            (std::vector<double>{-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75}));
}

TEST(OpArangeTest, InvalidArgumentsFail) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Float, {8});
  EXPECT_EQ(r.run("aten::arange.start_out", {r.i(0), r.i(5), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::arange.start_out", {r.i(0), r.i(5), r.i(-1), r.tensor(out)}),
            Error::InvalidArgument);
  // Needs 10 elements but out holds 8.
  EXPECT_NE(r.run("aten::arange.out", {r.i(10), r.tensor(out)}), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
