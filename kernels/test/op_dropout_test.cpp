// Tests for aten::native_dropout.out. PyTorch eager (torch.native_dropout)
// returns the input unchanged and an all-true mask when train=False or p=0,
// and zeros with an all-false mask when training with p=1.
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpNativeDropoutTest, EvalPassesThrough) {
  KernelRunner r;
  auto x = make_tensor<float>({2, 2}, {1.f, -2.f, 3.5f, 0.f});
  auto out = zeros_tensor(ScalarType::Float, {2, 2});
  auto mask = zeros_tensor(ScalarType::Bool, {2, 2});
  ASSERT_EQ(r.run("aten::native_dropout.out",
                  {r.tensor(x), r.d(0.5), r.b(false), r.tensor(out), r.tensor(mask)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.f, -2.f, 3.5f, 0.f}));
  EXPECT_EQ(mask.values<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 1}));
}

TEST(OpNativeDropoutTest, TrainingExtremes) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, {1.f, -2.f, 3.5f});
  auto out = zeros_tensor(ScalarType::Float, {3});
  auto mask = zeros_tensor(ScalarType::Bool, {3});
  ASSERT_EQ(r.run("aten::native_dropout.out",
                  {r.tensor(x), r.d(0.0), r.none(), r.tensor(out), r.tensor(mask)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.f, -2.f, 3.5f}));
  EXPECT_EQ(mask.values<uint8_t>(), (std::vector<uint8_t>{1, 1, 1}));
  ASSERT_EQ(r.run("aten::native_dropout.out",
                  {r.tensor(x), r.d(1.0), r.b(true), r.tensor(out), r.tensor(mask)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.f, -0.f, 0.f}));
  EXPECT_EQ(mask.values<uint8_t>(), (std::vector<uint8_t>{0, 0, 0}));
}

TEST(OpNativeDropoutTest, RandomTrainingNotImplemented) {
  KernelRunner r;
  auto x = make_tensor<float>({3}, {1.f, -2.f, 3.5f});
  auto out = zeros_tensor(ScalarType::Float, {3});
  auto mask = zeros_tensor(ScalarType::Bool, {3});
  EXPECT_EQ(r.run("aten::native_dropout.out",
                  {r.tensor(x), r.d(0.5), r.b(true), r.tensor(out), r.tensor(mask)}),
            Error::NotImplemented);
  EXPECT_EQ(r.run("aten::native_dropout.out",
                  {r.tensor(x), r.d(1.5), r.b(false), r.tensor(out), r.tensor(mask)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
