// aten::select_scatter.out and aten::slice_scatter.out. Expected values:
// torch 2.15.0 eager, the call written above each check.
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpSelectScatterTest, NegativeIndexAndConvertingSrc) {
  HostTensor s = make_tensor<float>({2, 3}, iota(6));
  HostTensor src = make_tensor<float>({2}, {7, 8});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::select_scatter.out",
                  {r.tensor(s), r.tensor(src), r.i(1), r.i(-1), r.tensor(out)}),
            Error::Ok);
  // torch.select_scatter(torch.arange(6.).view(2, 3), torch.tensor([7., 8.]), 1, -1)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 7, 3, 4, 8}));
  HostTensor isrc = make_tensor<int64_t>({3}, {7, 8, 9});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::select_scatter.out",
                   {r2.tensor(s), r2.tensor(isrc), r2.i(0), r2.i(0), r2.tensor(out)}),
            Error::Ok);
  // torch.select_scatter(torch.arange(6.).view(2, 3), torch.tensor([7, 8, 9]), 0, 0)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{7, 8, 9, 3, 4, 5}));
}

TEST(OpSelectScatterTest, Refusals) {
  HostTensor s = make_tensor<float>({3}, {0, 0, 0});
  HostTensor src = make_tensor<float>({}, {7});
  HostTensor out = zeros_tensor(ScalarType::Float, {3});
  for (int64_t index : {3, -4}) {  // torch: "index 3 out of range for tensor of size [3]"
    KernelRunner r;
    EXPECT_EQ(r.run("aten::select_scatter.out",
                    {r.tensor(s), r.tensor(src), r.i(0), r.i(index), r.tensor(out)}),
              Error::InvalidArgument);
  }
  HostTensor big = make_tensor<float>({2}, {1, 2});
  HostTensor s2 = zeros_tensor(ScalarType::Float, {2, 3});
  HostTensor o2 = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r;  // src must have the selected slice's shape [3]
  EXPECT_EQ(r.run("aten::select_scatter.out",
                  {r.tensor(s2), r.tensor(big), r.i(0), r.i(0), r.tensor(o2)}),
            Error::InvalidArgument);
}

TEST(OpSliceScatterTest, StepsAndClamping) {
  HostTensor s = make_tensor<float>({2, 6}, iota(12));
  HostTensor src = make_tensor<float>({2, 2}, {-1, -2, -3, -4});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 6});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::slice_scatter.out",
                  {r.tensor(s), r.tensor(src), r.i(1), r.i(1), r.i(5), r.i(2), r.tensor(out)}),
            Error::Ok);
  // torch.slice_scatter(torch.arange(12.).view(2, 6), src, 1, 1, 5, 2)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, -1, 2, -2, 4, 5, 6, -3, 8, -4, 10, 11}));

  HostTensor v = make_tensor<float>({5}, iota(5));
  HostTensor ones = make_tensor<float>({2}, {1, 1});
  HostTensor vo = zeros_tensor(ScalarType::Float, {5});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::slice_scatter.out", {r2.tensor(v), r2.tensor(ones), r2.i(0), r2.i(-3),
                                               r2.i(-1), r2.i(1), r2.tensor(vo)}),
            Error::Ok);
  // torch.slice_scatter(torch.arange(5.), torch.ones(2), 0, -3, -1)
  EXPECT_EQ(vo.values<float>(), (std::vector<float>{0, 1, 1, 1, 4}));

  HostTensor all = make_tensor<float>({5}, {9, 8, 7, 6, 5});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::slice_scatter.out", {r3.tensor(v), r3.tensor(all), r3.i(0), r3.none(),
                                               r3.none(), r3.i(1), r3.tensor(vo)}),
            Error::Ok);
  EXPECT_EQ(vo.values<float>(), (std::vector<float>{9, 8, 7, 6, 5}));

  HostTensor empty = zeros_tensor(ScalarType::Float, {0});
  KernelRunner r4;
  ASSERT_EQ(r4.run("aten::slice_scatter.out", {r4.tensor(v), r4.tensor(empty), r4.i(0), r4.i(10),
                                               r4.i(20), r4.i(1), r4.tensor(vo)}),
            Error::Ok);
  // torch.slice_scatter(torch.arange(5.), torch.ones(0), 0, 10, 20): self unchanged
  EXPECT_EQ(vo.values<float>(), (std::vector<float>{0, 1, 2, 3, 4}));
}

TEST(OpSliceScatterTest, Refusals) {
  HostTensor v = make_tensor<float>({5}, iota(5));
  HostTensor src = make_tensor<float>({3}, {1, 1, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {5});
  KernelRunner r;  // torch: "expected src to have a size equal to the slice of self"
  EXPECT_EQ(r.run("aten::slice_scatter.out",
                  {r.tensor(v), r.tensor(src), r.i(0), r.i(1), r.i(3), r.i(1), r.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r2;  // torch: "slice step must be positive"
  EXPECT_EQ(r2.prepare("aten::slice_scatter.out", {r2.tensor(v), r2.tensor(src), r2.i(0), r2.i(1),
                                                   r2.i(3), r2.i(0), r2.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r3;  // huge step: one element, no overflow
  HostTensor one = make_tensor<float>({1}, {7});
  ASSERT_EQ(r3.run("aten::slice_scatter.out", {r3.tensor(v), r3.tensor(one), r3.i(0), r3.i(2),
                                               r3.none(), r3.i(INT64_MAX), r3.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 7, 3, 4}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
