// aten::index_put.out and aten::index_put_. Expected values: torch 2.15.0
// eager, the call written above each check; s = torch.arange(12.).view(3, 4),
// t = torch.arange(24.).view(2, 3, 4).
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

Error put(HostTensor& self, std::vector<HostTensor*> indices, HostTensor& values, bool accumulate,
          HostTensor& out) {
  KernelRunner r;
  return r.run("aten::index_put.out", {r.tensor(self), r.tensor_list(std::move(indices), true),
                                       r.tensor(values), r.b(accumulate), r.tensor(out)});
}

TEST(OpIndexPutTest, RowsWithNegativeIndex) {
  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor i = make_tensor<int64_t>({2}, {0, -1});
  HostTensor v = make_tensor<float>({4}, {100, 200, 300, 400});
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  ASSERT_EQ(put(s, {&i}, v, false, out), Error::Ok);
  // s.index_put((torch.tensor([0, -1]),), torch.tensor([100., 200, 300, 400]))
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{100, 200, 300, 400, 4, 5, 6, 7, 100, 200, 300, 400}));
  EXPECT_EQ(s.values<float>(), iota(12));  // self untouched
}

TEST(OpIndexPutTest, AccumulateRepeatsAndIntIndices) {
  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor i0 = make_tensor<int64_t>({2}, {1, 1});
  HostTensor i1 = make_tensor<int64_t>({2}, {0, 0});
  HostTensor v = make_tensor<float>({}, {5});
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  ASSERT_EQ(put(s, {&i0, &i1}, v, true, out), Error::Ok);
  // s.index_put((torch.tensor([1, 1]), torch.tensor([0, 0])), torch.tensor(5.), True)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 2, 3, 14, 5, 6, 7, 8, 9, 10, 11}));

  HostTensor z = zeros_tensor(ScalarType::Int, {4});
  HostTensor ii = make_tensor<int32_t>({3}, {0, 0, 3});
  HostTensor vi = make_tensor<int32_t>({3}, {2, 3, 4});
  HostTensor oi = zeros_tensor(ScalarType::Int, {4});
  ASSERT_EQ(put(z, {&ii}, vi, true, oi), Error::Ok);
  // torch.zeros(4, dtype=torch.int32).index_put((torch.tensor([0, 0, 3], dtype=torch.int32),),
  //   torch.tensor([2, 3, 4], dtype=torch.int32), True)
  EXPECT_EQ(oi.values<int32_t>(), (std::vector<int32_t>{5, 0, 0, 4}));
}

TEST(OpIndexPutTest, NoneSlotsMasksAndBroadcast) {
  HostTensor t = make_tensor<float>({2, 3, 4}, iota(24));
  HostTensor a = make_tensor<int64_t>({2}, {0, 1});
  HostTensor c = make_tensor<int64_t>({2}, {3, 0});
  HostTensor v = make_tensor<float>({3}, {-1, -2, -3});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(put(t, {&a, nullptr, &c}, v, false, out), Error::Ok);
  // torch.ops.aten.index_put(t, [torch.tensor([0, 1]), None, torch.tensor([3, 0])],
  //   torch.tensor([-1., -2, -3])): separated index dims move to the front
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0,  1,  2,  -1, 4,  5,  6,  -2, 8,  9,  10, -3,
                                -1, 13, 14, 15, -2, 17, 18, 19, -3, 21, 22, 23}));

  HostTensor rows = make_tensor<int64_t>({2, 1}, {0, 2});
  HostTensor cols = make_tensor<int64_t>({2}, {1, 3});
  HostTensor nine = make_tensor<float>({}, {9});
  ASSERT_EQ(put(t, {nullptr, &rows, &cols}, nine, false, out), Error::Ok);
  // torch.ops.aten.index_put(t, [None, torch.tensor([[0], [2]]), torch.tensor([1, 3])],
  //   torch.tensor(9.))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0,  9, 2,  9, 4,  5,  6,  7,  8,  9, 10, 9,
                                                     12, 9, 14, 9, 16, 17, 18, 19, 20, 9, 22, 9}));

  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor m = make_bool({3, 4}, {1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0});
  HostTensor mv = make_tensor<float>({1}, {-7});
  HostTensor mout = zeros_tensor(ScalarType::Float, {3, 4});
  ASSERT_EQ(put(s, {&m}, mv, false, mout), Error::Ok);
  // s.index_put((mask,), torch.tensor([-7.]))
  EXPECT_EQ(mout.values<float>(), (std::vector<float>{-7, 1, 2, -7, 4, 5, -7, 7, 8, 9, 10, 11}));
}

TEST(OpIndexPutTest, InPlace) {
  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor i = make_tensor<int64_t>({2}, {0, -1});
  HostTensor v = make_tensor<float>({4}, {100, 200, 300, 400});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::index_put_", {r.tensor(s), r.tensor_list({&i}, true), r.tensor(v), r.b(false)}),
      Error::Ok);
  EXPECT_EQ(s.values<float>(),
            (std::vector<float>{100, 200, 300, 400, 4, 5, 6, 7, 100, 200, 300, 400}));
}

TEST(OpIndexPutTest, RefusesBadIndicesAndValues) {
  HostTensor s = make_tensor<float>({3, 4}, iota(12));
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 4});
  HostTensor v = make_tensor<float>({}, {1});
  for (int64_t bad : {int64_t{3}, int64_t{-4}, INT64_MIN}) {  // torch: "index 3 is out of bounds"
    HostTensor i = make_tensor<int64_t>({1}, {bad});
    EXPECT_EQ(put(s, {&i}, v, false, out), Error::InvalidArgument) << bad;
  }
  EXPECT_EQ(s.values<float>(), iota(12));
  HostTensor i = make_tensor<int64_t>({2}, {0, 1});
  HostTensor v3 = make_tensor<float>({3}, {1, 2, 3});  // does not broadcast to [2, 4]
  EXPECT_EQ(put(s, {&i}, v3, false, out), Error::InvalidArgument);
  HostTensor m = make_bool({2, 4}, {1, 0, 0, 0, 0, 0, 0, 0});  // mask shape differs from self's
  EXPECT_EQ(put(s, {&m}, v, false, out), Error::InvalidArgument);
  {  // values dtype differs: torch "Index put requires the source and destination dtypes match"
    HostTensor vd = make_tensor<double>({}, {1});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::index_put.out", {r.tensor(s), r.tensor_list({&i}, true),
                                                r.tensor(vd), r.b(false), r.tensor(out)}),
              Error::InvalidType);
  }
  {  // too many indices
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::index_put.out", {r.tensor(s), r.tensor_list({&i, &i, &i}, true),
                                                r.tensor(v), r.b(false), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {  // float index
    HostTensor fi = zeros_tensor(ScalarType::Float, {1});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::index_put.out", {r.tensor(s), r.tensor_list({&fi}, true),
                                                r.tensor(v), r.b(false), r.tensor(out)}),
              Error::InvalidType);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
