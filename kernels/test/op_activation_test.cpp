// Tests for relu, gelu, hardtanh, leaky_relu, elu and clamp. Expected values
// were computed with PyTorch eager (CPU, float32) from the same inputs.
#include <cmath>
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor input() { return make_tensor<float>({2, 3}, {-3.0f, -0.5f, 0.0f, 0.25f, 1.5f, 4.0f}); }

TEST(OpReluTest, FloatAndLong) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::relu.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {0.0f, 0.0f, 0.0f, 0.25f, 1.5f, 4.0f});
  auto xi = make_tensor<int64_t>({3}, {-5, 0, 7});
  auto oi = zeros_tensor(ScalarType::Long, {3});
  ASSERT_EQ(r.run("aten::relu.out", {r.tensor(xi), r.tensor(oi)}), Error::Ok);
  EXPECT_EQ(oi.values<int64_t>(), (std::vector<int64_t>{0, 0, 7}));
}

TEST(OpReluTest, NanStaysNanAndBoolIsRejected) {
  KernelRunner r;
  auto x = make_tensor<float>({1}, {NAN});
  auto out = zeros_tensor(ScalarType::Float, {1});
  ASSERT_EQ(r.run("aten::relu.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_TRUE(std::isnan(out.values<float>()[0]));
  auto b = make_bool({1}, {1});
  auto bout = static_out(ScalarType::Bool, {1});
  EXPECT_EQ(r.run("aten::relu.out", {r.tensor(b), r.tensor(bout)}), Error::InvalidType);
}

TEST(OpGeluTest, ExactAndTanh) {
  KernelRunner r;
  auto x = input();
  auto exact = zeros_tensor(ScalarType::Float, {2, 3});
  auto tanh = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::gelu.out", {r.tensor(x), r.str("none"), r.tensor(exact)}), Error::Ok);
  ASSERT_EQ(r.run("aten::gelu.out", {r.tensor(x), r.str("tanh"), r.tensor(tanh)}), Error::Ok);
  expect_close(exact.values<float>(),
               {-0.004050225019454956f, -0.1542687714099884f, 0.0f, 0.14967657625675201f,
                1.3997890949249268f, 3.999873638153076f});
  expect_close(tanh.values<float>(),
               {-0.0036374330520629883f, -0.1542859971523285f, 0.0f, 0.14967535436153412f,
                1.3995715379714966f, 3.999929904937744f});
}

TEST(OpGeluTest, BadApproximateAndIntegerInputFail) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::gelu.out", {r.tensor(x), r.str("erf"), r.tensor(out)}),
            Error::InvalidArgument);
  auto xi = make_tensor<int64_t>({1}, {1});
  auto oi = zeros_tensor(ScalarType::Long, {1});
  EXPECT_EQ(r.run("aten::gelu.out", {r.tensor(xi), r.str("none"), r.tensor(oi)}),
            Error::InvalidType);
}

TEST(OpHardtanhTest, ClampsToBounds) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::hardtanh.out", {r.tensor(x), r.d(-1.0), r.d(2.0), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {-1.0f, -0.5f, 0.0f, 0.25f, 1.5f, 2.0f});
}

TEST(OpLeakyReluTest, NegativeSlope) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::leaky_relu.out", {r.tensor(x), r.d(0.1), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(),
               {-0.30000001192092896f, -0.05000000074505806f, 0.0f, 0.25f, 1.5f, 4.0f});
}

TEST(OpEluTest, AlphaScaleInputScale) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::elu.out", {r.tensor(x), r.d(1.5), r.d(2.0), r.d(0.5), r.tensor(out)}),
            Error::Ok);
  // torch.ops.aten.elu(x, 1.5, 2.0, 0.5)
  expect_close(out.values<float>(),
               {-2.3306095600128174f, -0.6635976433753967f, 0.0f, 0.5f, 3.0f, 8.0f});
}

TEST(OpClampTest, ScalarBounds) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::clamp.out", {r.tensor(x), r.d(-1.0), r.d(1.0), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {-1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 1.0f});
}

TEST(OpClampTest, MinOnlyPromotesIntToFloat) {
  KernelRunner r;
  auto x = make_tensor<int64_t>({3}, {-3, 0, 3});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::clamp.out", {r.tensor(x), r.d(0.5), r.none(), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {0.5f, 0.5f, 3.0f});
}

TEST(OpClampTest, IntBoundsAndNanAndMinAboveMax) {
  KernelRunner r;
  auto xi = make_tensor<int32_t>({3}, {-3, 0, 3});
  auto oi = zeros_tensor(ScalarType::Int, {3});
  ASSERT_EQ(r.run("aten::clamp.out", {r.tensor(xi), r.i(-1), r.i(2), r.tensor(oi)}), Error::Ok);
  EXPECT_EQ(oi.values<int32_t>(), (std::vector<int32_t>{-1, 0, 2}));
  auto xf = make_tensor<float>({3}, {-3.0f, NAN, 3.0f});
  auto of = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.run("aten::clamp.out", {r.tensor(xf), r.i(1), r.i(0), r.tensor(of)}), Error::Ok);
  expect_close_special(of.values<float>(), {0.0f, NAN, 0.0f});
}

TEST(OpClampTest, NoBoundsFails) {
  KernelRunner r;
  auto x = input();
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::clamp.out", {r.tensor(x), r.none(), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpClampTensorTest, BroadcastBounds) {
  KernelRunner r;
  auto x = input();
  auto lo = make_tensor<float>({3}, {-1.0f, 0.0f, 0.5f});
  auto hi = make_tensor<float>({2, 1}, {0.0f, 1.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(
      r.run("aten::clamp.Tensor_out", {r.tensor(x), r.tensor(lo), r.tensor(hi), r.tensor(out)}),
      Error::Ok);
  expect_close(out.values<float>(), {-1.0f, 0.0f, 0.0f, 0.25f, 1.0f, 1.0f});
}

TEST(OpClampTensorTest, MaxOnly) {
  KernelRunner r;
  auto x = input();
  auto hi = make_tensor<float>({3}, {0.0f, 0.0f, 0.1f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(r.run("aten::clamp.Tensor_out", {r.tensor(x), r.none(), r.tensor(hi), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(), {-3.0f, -0.5f, 0.0f, 0.0f, 0.0f, 0.10000000149011612f});
}

TEST(OpClampTensorTest, UnbroadcastableBoundFails) {
  KernelRunner r;
  auto x = input();
  auto lo = make_tensor<float>({2}, {0.0f, 0.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.run("aten::clamp.Tensor_out", {r.tensor(x), r.tensor(lo), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
