// aten::gather.out, aten::scatter.src_out, aten::scatter.value_out and
// aten::scatter_add.out. Expected values: torch 2.15.0 eager, the call
// written above each check; s = torch.arange(12.).view(3, 4).
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpGatherTest, AlongEachDimWithLongAndIntIndex) {
  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor i0 = make_tensor<int64_t>({2, 4}, {2, 0, 1, 1, 0, 2, 2, 0});
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::gather.out", {r.tensor(s), r.i(0), r.tensor(i0), r.b(false), r.tensor(out)}),
      Error::Ok);
  // torch.gather(s, 0, torch.tensor([[2, 0, 1, 1], [0, 2, 2, 0]]))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{8, 1, 6, 7, 0, 9, 10, 3}));
  HostTensor i1 = make_tensor<int32_t>({3, 2}, {3, 0, 1, 1, 2, 3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::gather.out",
                   {r2.tensor(s), r2.i(-1), r2.tensor(i1), r2.b(false), r2.tensor(out)}),
            Error::Ok);
  // torch.gather(s, -1, torch.tensor([[3, 0], [1, 1], [2, 3]], dtype=torch.int32))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3, 0, 5, 5, 10, 11}));
}

TEST(OpGatherTest, BoolZeroDAndEmpty) {
  HostTensor b = make_bool({2, 2}, {1, 0, 0, 1});
  HostTensor ib = make_tensor<int64_t>({2, 2}, {1, 1, 0, 1});
  HostTensor bout = zeros_tensor(ScalarType::Bool, {2, 2});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::gather.out", {r.tensor(b), r.i(1), r.tensor(ib), r.b(false), r.tensor(bout)}),
      Error::Ok);
  // torch.gather(torch.tensor([[True, False], [False, True]]), 1, torch.tensor([[1, 1], [0, 1]]))
  EXPECT_EQ(bout.values<bool>(), (std::vector<bool>{false, false, false, true}));

  HostTensor x0 = make_tensor<float>({}, {5.0f});
  HostTensor i0 = make_tensor<int64_t>({}, {0});
  HostTensor o0 = zeros_tensor(ScalarType::Float, {});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::gather.out",
                   {r2.tensor(x0), r2.i(0), r2.tensor(i0), r2.b(false), r2.tensor(o0)}),
            Error::Ok);
  // torch.gather(torch.tensor(5.), 0, torch.tensor(0))
  EXPECT_EQ(o0.values<float>(), (std::vector<float>{5.0f}));

  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor ie = zeros_tensor(ScalarType::Long, {0, 4});
  HostTensor oe = zeros_tensor(ScalarType::Float, {3, 4});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::gather.out",
                   {r3.tensor(s), r3.i(0), r3.tensor(ie), r3.b(false), r3.tensor(oe)}),
            Error::Ok);
  EXPECT_EQ(oe.tensor().numel(), 0);
}

TEST(OpGatherTest, RefusesBadIndices) {
  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  // torch raises "index -1 is out of bounds for dimension 0 with size 3": no wrapping.
  for (int64_t v : {int64_t{-1}, int64_t{3}, INT64_MIN, INT64_MAX}) {
    HostTensor i = make_tensor<int64_t>({1, 1}, {v});
    KernelRunner r;
    EXPECT_EQ(
        r.run("aten::gather.out", {r.tensor(s), r.i(0), r.tensor(i), r.b(false), r.tensor(out)}),
        Error::InvalidArgument)
        << v;
  }
  {  // index larger than self along a non-gathered dim
    HostTensor i = zeros_tensor(ScalarType::Long, {1, 5});
    KernelRunner r;
    EXPECT_EQ(
        r.run("aten::gather.out", {r.tensor(s), r.i(0), r.tensor(i), r.b(false), r.tensor(out)}),
        Error::InvalidArgument);
  }
  {  // index rank differs
    HostTensor i = zeros_tensor(ScalarType::Long, {2});
    HostTensor o1 = zeros_tensor(ScalarType::Float, {2});
    KernelRunner r;
    EXPECT_EQ(
        r.prepare("aten::gather.out", {r.tensor(s), r.i(0), r.tensor(i), r.b(false), r.tensor(o1)}),
        Error::InvalidArgument);
  }
  {  // float index
    HostTensor i = zeros_tensor(ScalarType::Float, {1, 1});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::gather.out",
                        {r.tensor(s), r.i(0), r.tensor(i), r.b(false), r.tensor(out)}),
              Error::InvalidType);
  }
  {  // dim out of range
    HostTensor i = zeros_tensor(ScalarType::Long, {1, 1});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::gather.out",
                        {r.tensor(s), r.i(2), r.tensor(i), r.b(false), r.tensor(out)}),
              Error::InvalidArgument);
  }
}

TEST(OpScatterTest, SrcAndValue) {
  HostTensor z = zeros_tensor(ScalarType::Float, {3, 4});
  HostTensor i = make_tensor<int64_t>({2, 4}, {2, 0, 1, 1, 0, 2, 2, 0});
  HostTensor src = make_tensor<float>({2, 4}, iota(8, 1.0f));
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::scatter.src_out",
                  {r.tensor(z), r.i(0), r.tensor(i), r.tensor(src), r.tensor(out)}),
            Error::Ok);
  // torch.zeros(3, 4).scatter(0, i, torch.arange(1., 9.).view(2, 4))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 2, 0, 8, 0, 0, 3, 4, 1, 6, 7, 0}));

  HostTensor iv = make_tensor<int32_t>({3, 1}, {1, 3, 0});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::scatter.value_out",
                   {r2.tensor(z), r2.i(1), r2.tensor(iv), r2.d(2.5), r2.tensor(out)}),
            Error::Ok);
  // torch.zeros(3, 4).scatter(1, torch.tensor([[1], [3], [0]]), 2.5)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 2.5, 0, 0, 0, 0, 0, 2.5, 2.5, 0, 0, 0}));

  HostTensor zi = zeros_tensor(ScalarType::Int, {3});
  HostTensor oi = zeros_tensor(ScalarType::Int, {3});
  HostTensor one = make_tensor<int64_t>({1}, {1});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::scatter.value_out",
                   {r3.tensor(zi), r3.i(0), r3.tensor(one), r3.d(2.7), r3.tensor(oi)}),
            Error::Ok);
  // torch.zeros(3, dtype=torch.int32).scatter(0, torch.tensor([1]), 2.7)
  EXPECT_EQ(oi.values<int32_t>(), (std::vector<int32_t>{0, 2, 0}));
}

TEST(OpScatterTest, AddWrapsIntegersAndOrsBools) {
  HostTensor self = make_tensor<int8_t>({3, 4}, std::vector<int8_t>(12, 100));
  HostTensor i = make_tensor<int64_t>({2, 4}, {0, 0, 1, 1, 0, 2, 1, 2});
  HostTensor src = make_tensor<int8_t>({2, 4}, {50, 50, 50, 50, 60, 60, 60, 60});
  HostTensor out = zeros_tensor(ScalarType::Char, {3, 4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::scatter_add.out",
                  {r.tensor(self), r.i(0), r.tensor(i), r.tensor(src), r.tensor(out)}),
            Error::Ok);
  // torch.full((3, 4), 100, dtype=torch.int8).scatter_add(0, i, src)
  EXPECT_EQ(out.values<int8_t>(),
            (std::vector<int8_t>{-46, -106, 100, 100, 100, 100, -46, -106, 100, -96, 100, -96}));

  HostTensor b = zeros_tensor(ScalarType::Bool, {2, 2});
  HostTensor ib = make_tensor<int64_t>({1, 2}, {1, 1});
  HostTensor sb = make_bool({1, 2}, {1, 0});
  HostTensor ob = zeros_tensor(ScalarType::Bool, {2, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::scatter_add.out",
                   {r2.tensor(b), r2.i(1), r2.tensor(ib), r2.tensor(sb), r2.tensor(ob)}),
            Error::Ok);
  // torch.zeros(2, 2, dtype=torch.bool).scatter_add(1, torch.tensor([[1, 1]]), torch.tensor([[True,
  // False]]))
  EXPECT_EQ(ob.values<bool>(), (std::vector<bool>{false, true, false, false}));
}

TEST(OpScatterTest, RefusesBadArguments) {
  HostTensor z = zeros_tensor(ScalarType::Float, {3, 4});
  HostTensor src = make_tensor<float>({2, 4}, iota(8));
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  for (int64_t v :
       {int64_t{-1},
        int64_t{3}}) {  // torch: "index -1 is out of bounds for dimension 0 with size 3"
    HostTensor i = make_tensor<int64_t>({1, 1}, {v});
    KernelRunner r;
    EXPECT_EQ(r.run("aten::scatter.src_out",
                    {r.tensor(z), r.i(0), r.tensor(i), r.tensor(src), r.tensor(out)}),
              Error::InvalidArgument);
    KernelRunner r2;
    EXPECT_EQ(r2.run("aten::scatter_add.out",
                     {r2.tensor(z), r2.i(0), r2.tensor(i), r2.tensor(src), r2.tensor(out)}),
              Error::InvalidArgument);
  }
  {  // index larger than src
    HostTensor i = zeros_tensor(ScalarType::Long, {3, 4});
    KernelRunner r;
    EXPECT_EQ(r.run("aten::scatter.src_out",
                    {r.tensor(z), r.i(0), r.tensor(i), r.tensor(src), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {  // src dtype differs: torch "Expected self.dtype to be equal to src.dtype"
    HostTensor sd = zeros_tensor(ScalarType::Double, {2, 4});
    HostTensor i = zeros_tensor(ScalarType::Long, {1, 1});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::scatter.src_out",
                        {r.tensor(z), r.i(0), r.tensor(i), r.tensor(sd), r.tensor(out)}),
              Error::InvalidType);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
