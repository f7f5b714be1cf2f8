// aten::topk.values. Expected values: torch 2.15.0 eager, torch.topk on the
// inputs below.
#include <cmath>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// y = torch.tensor([[4, 1, 7, 3], [2, 9, 0, 5], [8, 6, -1, 10]], dtype=torch.int32)
HostTensor sample_y() {
  return make_tensor<int32_t>({3, 4}, {4, 1, 7, 3, 2, 9, 0, 5, 8, 6, -1, 10});
}

TEST(OpTopkTest, IntAlongEachDim) {
  HostTensor y = sample_y();
  // torch.topk(y, 2, dim=0)
  HostTensor v = zeros_tensor(ScalarType::Int, {3, 4});
  HostTensor i = zeros_tensor(ScalarType::Long, {3, 4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::topk.values",
                  {r.tensor(y), r.i(2), r.i(0), r.b(true), r.b(true), r.tensor(v), r.tensor(i)}),
            Error::Ok);
  EXPECT_EQ(v.shape(), (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(v.values<int32_t>(), (std::vector<int32_t>{8, 9, 7, 10, 4, 6, 0, 5}));
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{2, 1, 0, 2, 0, 2, 1, 1}));
  // torch.topk(y, 3, dim=-1, largest=False)
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::topk.values", {r2.tensor(y), r2.i(3), r2.i(-1), r2.b(false), r2.b(true),
                                         r2.tensor(v), r2.tensor(i)}),
            Error::Ok);
  EXPECT_EQ(v.values<int32_t>(), (std::vector<int32_t>{1, 3, 4, 0, 2, 5, -1, 6, 8}));
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{1, 3, 0, 2, 0, 3, 2, 1, 0}));
}

TEST(OpTopkTest, NanRanksHighest) {
  // x = torch.tensor([3, nan, 1, 5, -2, nan, 0.5])
  HostTensor x = make_tensor<float>({7}, {3, NAN, 1, 5, -2, NAN, 0.5f});
  HostTensor v = zeros_tensor(ScalarType::Float, {7});
  HostTensor i = zeros_tensor(ScalarType::Long, {7});
  // torch.topk(x, 3) -> values [nan, nan, 5], indices [1, 5, 3]
  KernelRunner r;
  ASSERT_EQ(r.run("aten::topk.values",
                  {r.tensor(x), r.i(3), r.i(0), r.b(true), r.b(true), r.tensor(v), r.tensor(i)}),
            Error::Ok);
  std::vector<float> vv = v.values<float>();
  EXPECT_TRUE(std::isnan(vv[0]) && std::isnan(vv[1]));
  EXPECT_EQ(vv[2], 5.0f);
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{1, 5, 3}));
  // torch.topk(x, 7, largest=False) -> [-2, 0.5, 1, 3, 5, nan, nan], indices [4, 6, 2, 0, 3, ...]
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::topk.values", {r2.tensor(x), r2.i(7), r2.i(-1), r2.b(false), r2.b(true),
                                         r2.tensor(v), r2.tensor(i)}),
            Error::Ok);
  vv = v.values<float>();
  EXPECT_EQ(std::vector<float>(vv.begin(), vv.begin() + 5),
            (std::vector<float>{-2, 0.5f, 1, 3, 5}));
  EXPECT_TRUE(std::isnan(vv[5]) && std::isnan(vv[6]));
  const std::vector<int64_t> iv = i.values<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(iv.begin(), iv.begin() + 5),
            (std::vector<int64_t>{4, 6, 2, 0, 3}));
}

TEST(OpTopkTest, WithoutScratchMemory) {
  // A slice too long for the runner's 1 MiB temp allocator takes the
  // selection path: x[j] = (j * 7919) % 200003 for j < 200003 is a
  // permutation of 0..200002, so torch.topk(x, 3) is [200002, 200001, 200000].
  constexpr int32_t kN = 200003;
  std::vector<int64_t> xv(kN);
  for (int64_t j = 0; j < kN; ++j) xv[j] = (j * 7919) % kN;
  HostTensor x = make_tensor<int64_t>({kN}, xv);
  HostTensor v = zeros_tensor(ScalarType::Long, {3});
  HostTensor i = zeros_tensor(ScalarType::Long, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::topk.values",
                  {r.tensor(x), r.i(3), r.i(0), r.b(true), r.b(false), r.tensor(v), r.tensor(i)}),
            Error::Ok);
  EXPECT_EQ(v.values<int64_t>(), (std::vector<int64_t>{kN - 1, kN - 2, kN - 3}));
  for (int k = 0; k < 3; ++k) EXPECT_EQ(xv[i.values<int64_t>()[k]], kN - 1 - k);
}

TEST(OpTopkTest, ZeroDimEmptyAndRefusals) {
  // torch.topk(torch.tensor(4.), 0) -> values 4., indices 0 (0-d).
  HostTensor s = make_tensor<double>({}, {4});
  HostTensor v0 = zeros_tensor(ScalarType::Double, {});
  HostTensor i0 = make_tensor<int64_t>({}, {9});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::topk.values",
                  {r.tensor(s), r.i(0), r.i(-1), r.b(true), r.b(true), r.tensor(v0), r.tensor(i0)}),
            Error::Ok);
  EXPECT_EQ(v0.values<double>(), std::vector<double>{4});
  EXPECT_EQ(i0.values<int64_t>(), std::vector<int64_t>{0});
  HostTensor y = sample_y();
  HostTensor v = zeros_tensor(ScalarType::Int, {3, 4});
  HostTensor i = zeros_tensor(ScalarType::Long, {3, 4});
  KernelRunner r1;
  ASSERT_EQ(r1.run("aten::topk.values", {r1.tensor(y), r1.i(0), r1.i(1), r1.b(true), r1.b(true),
                                         r1.tensor(v), r1.tensor(i)}),
            Error::Ok);
  EXPECT_EQ(v.shape(), (std::vector<int32_t>{3, 0}));
  // torch: "selected index k out of range".
  KernelRunner r2;
  EXPECT_EQ(r2.run("aten::topk.values", {r2.tensor(y), r2.i(5), r2.i(1), r2.b(true), r2.b(true),
                                         r2.tensor(v), r2.tensor(i)}),
            Error::InvalidArgument);
  // At load: Bool self ("topk does not support bool dtypes on CPU"), Int indices, bad dim.
  HostTensor b = make_bool({3}, {1, 0, 1});
  HostTensor bv = zeros_tensor(ScalarType::Bool, {3});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::topk.values", {r3.tensor(b), r3.i(1), r3.i(0), r3.b(true), r3.b(true),
                                             r3.tensor(bv), r3.tensor(i)}),
            Error::InvalidType);
  HostTensor ii = zeros_tensor(ScalarType::Int, {3, 4});
  EXPECT_EQ(r3.prepare("aten::topk.values", {r3.tensor(y), r3.i(1), r3.i(0), r3.b(true), r3.b(true),
                                             r3.tensor(v), r3.tensor(ii)}),
            Error::InvalidType);
  EXPECT_EQ(r3.prepare("aten::topk.values", {r3.tensor(y), r3.i(1), r3.i(2), r3.b(true), r3.b(true),
                                             r3.tensor(v), r3.tensor(i)}),
            Error::InvalidArgument);
}

TEST(OpEtCopyTest, HostToDeviceAndBack) {
  HostTensor x = make_tensor<int16_t>({2, 3}, {1, -2, 3, -4, 5, -6});
  for (const char* op : {"et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"}) {
    HostTensor out = zeros_tensor(ScalarType::Short, {2, 3});
    KernelRunner r;
    ASSERT_EQ(r.run(op, {r.tensor(x), r.tensor(out)}), Error::Ok) << op;
    EXPECT_EQ(out.values<int16_t>(), (std::vector<int16_t>{1, -2, 3, -4, 5, -6})) << op;
    HostTensor wrong = zeros_tensor(ScalarType::Int, {2, 3});
    KernelRunner r2;
    EXPECT_EQ(r2.prepare(op, {r2.tensor(x), r2.tensor(wrong)}), Error::InvalidType) << op;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
