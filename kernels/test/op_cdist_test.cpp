// aten::_cdist_forward.out and aten::_pdist_forward.out. Expected values:
// torch 2.15.0 eager, torch.ops.aten._cdist_forward / _pdist_forward on the
// inputs below.
#include <cmath>
#include <limits>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// x1 = [[0, 1, 2], [3, -1, 0.5]], x2 = [[1, 1, 1], [0, 0, 0], [2, -2, 4]]
TEST(OpCdistTest, EveryNorm) {
  HostTensor x1 = make_tensor<float>({2, 3}, {0, 1, 2, 3, -1, 0.5f});
  HostTensor x2 = make_tensor<float>({3, 3}, {1, 1, 1, 0, 0, 0, 2, -2, 4});
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    double p;
    std::vector<float> expected;
  };
  const Case cases[] = {
      {0.0, {2, 2, 3, 3, 3, 3}},
      {1.0, {2, 3, 7, 4.5f, 4.5f, 5.5f}},
      {2.0,
       {1.4142135381698608f, 2.2360680103302f, 4.123105525970459f, 2.872281312942505f,
        3.2015621662139893f, 3.7749171257019043f}},
      {3.0,
       {1.2599210739135742f, 2.0800838470458984f, 3.5033979415893555f, 2.5263872146606445f,
        3.0411009788513184f, 3.5535967350006104f}},
      {inf, {1, 2, 3, 2, 3, 3.5f}},
      {0.5,
       {4.0f, 5.828427791595459f, 20.797956466674805f, 12.5f, 11.827805519104004f,
        14.983314514160156f}},
  };
  for (const Case& c : cases) {
    HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::_cdist_forward.out",
                    {r.tensor(x1), r.tensor(x2), r.d(c.p), r.none(), r.tensor(out)}),
              Error::Ok)
        << c.p;
    expect_close(out.values<float>(), c.expected, 1e-5, 1e-6);
  }
}

TEST(OpCdistTest, BatchBroadcast) {
  // b1 = torch.arange(12.).reshape(2, 2, 3) / 3; b2 = [[[1, 0, -1]]]; p = 2
  std::vector<float> b1v = iota<float>(12);
  for (float& v : b1v) v /= 3;
  HostTensor b1 = make_tensor<float>({2, 2, 3}, b1v);
  HostTensor b2 = make_tensor<float>({1, 1, 3}, {1, 0, -1});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2, 1});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_cdist_forward.out",
                  {r.tensor(b1), r.tensor(b2), r.d(2.0), r.i(0), r.tensor(out)}),
            Error::Ok);
  expect_close(out.values<float>(),
               {1.9720267057418823f, 2.981423854827881f, 4.459696292877197f, 6.073622703552246f});
  // b1.reshape(2, 1, 2, 3) against torch.arange(9.).reshape(3, 1, 3), p = 1: out [2, 3, 2, 1]
  HostTensor c1 = make_tensor<float>({2, 1, 2, 3}, b1v);
  HostTensor c2 = make_tensor<float>({3, 1, 3}, iota<float>(9));
  HostTensor out4 = zeros_tensor(ScalarType::Float, {2, 3, 2, 1});
  KernelRunner r4;
  ASSERT_EQ(r4.run("aten::_cdist_forward.out",
                   {r4.tensor(c1), r4.tensor(c2), r4.d(1.0), r4.none(), r4.tensor(out4)}),
            Error::Ok);
  expect_close(out4.values<float>(), {2, 1.6666667461395264f, 11, 8, 20, 17, 4, 7, 5, 2, 14, 11});
}

TEST(OpCdistTest, EmptyAndRefusals) {
  // torch: zero columns give zero distances.
  HostTensor e1 = zeros_tensor(ScalarType::Double, {2, 0});
  HostTensor e2 = zeros_tensor(ScalarType::Double, {3, 0});
  HostTensor out = make_tensor<double>({2, 3}, {1, 1, 1, 1, 1, 1});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_cdist_forward.out",
                  {r.tensor(e1), r.tensor(e2), r.d(2.0), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<double>(), std::vector<double>(6, 0.0));
  HostTensor x = make_tensor<float>({2, 3}, iota<float>(6));
  HostTensor y = make_tensor<float>({2, 2}, iota<float>(4));
  HostTensor xi = make_tensor<int32_t>({2, 3}, iota<int32_t>(6));
  HostTensor v = make_tensor<float>({3}, iota<float>(3));
  HostTensor fo = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r2;
  // "cdist only supports floating-point dtypes"; negative p; bad compute_mode; 1-D input.
  EXPECT_EQ(r2.prepare("aten::_cdist_forward.out",
                       {r2.tensor(xi), r2.tensor(xi), r2.d(2.0), r2.none(), r2.tensor(fo)}),
            Error::InvalidType);
  EXPECT_EQ(r2.prepare("aten::_cdist_forward.out",
                       {r2.tensor(x), r2.tensor(x), r2.d(-1.0), r2.none(), r2.tensor(fo)}),
            Error::InvalidArgument);
  EXPECT_EQ(r2.prepare("aten::_cdist_forward.out",
                       {r2.tensor(x), r2.tensor(x), r2.d(2.0), r2.i(3), r2.tensor(fo)}),
            Error::InvalidArgument);
  EXPECT_EQ(r2.prepare("aten::_cdist_forward.out",
                       {r2.tensor(v), r2.tensor(x), r2.d(2.0), r2.none(), r2.tensor(fo)}),
            Error::InvalidArgument);
  // Column counts differ: in run.
  KernelRunner r3;
  EXPECT_EQ(r3.run("aten::_cdist_forward.out",
                   {r3.tensor(x), r3.tensor(y), r3.d(2.0), r3.none(), r3.tensor(fo)}),
            Error::InvalidArgument);
}

// y = [[0, 1, 2], [3, -1, 0.5], [1, 1, 1], [2, 2, -2]] (float64)
TEST(OpPdistTest, EveryNorm) {
  HostTensor y = make_tensor<double>({4, 3}, {0, 1, 2, 3, -1, 0.5, 1, 1, 1, 2, 2, -2});
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    double p;
    std::vector<double> expected;
  };
  const Case cases[] = {
      {0.0, {3, 2, 3, 3, 3, 3}},
      {1.0, {6.5, 2, 7, 4.5, 6.5, 5}},
      {2.0,
       {3.905124837953327, 1.4142135623730951, 4.58257569495584, 2.8722813232690143,
        4.031128874149275, 3.3166247903554}},
      {inf, {3, 1, 4, 2, 3, 3}},
      {1.5,
       {4.598693151933275, 1.5874010519681994, 5.191402066808782, 3.3057445092289726,
        4.687581382114941, 3.7273505202246384}},
  };
  for (const Case& c : cases) {
    HostTensor out = zeros_tensor(ScalarType::Double, {6});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::_pdist_forward.out", {r.tensor(y), r.d(c.p), r.tensor(out)}), Error::Ok)
        << c.p;
    expect_close(out.values<double>(), c.expected, 1e-12, 1e-12);
  }
}

TEST(OpPdistTest, SmallAndRefusals) {
  // One row: no pairs.
  HostTensor one = make_tensor<float>({1, 3}, {1, 2, 3});
  HostTensor out = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_pdist_forward.out", {r.tensor(one), r.d(2.0), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{0}));
  HostTensor x3 = zeros_tensor(ScalarType::Float, {2, 2, 2});
  HostTensor xi = make_tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::_pdist_forward.out", {r2.tensor(x3), r2.d(2.0), r2.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(r2.prepare("aten::_pdist_forward.out", {r2.tensor(xi), r2.d(2.0), r2.tensor(out)}),
            Error::InvalidType);
  EXPECT_EQ(r2.prepare("aten::_pdist_forward.out", {r2.tensor(one), r2.d(-0.5), r2.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
