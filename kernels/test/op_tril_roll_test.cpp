// aten::tril.out and aten::roll.out. Expected values: torch 2.15.0 eager on
// CPU, torch.tril(x, diagonal) and torch.roll(x, shifts, dims) on the inputs
// of each case.
#include <cstdint>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

std::vector<int64_t> arange(int64_t from, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = from + i;
  return v;
}

// ---- tril.out

TEST(OpTrilTest, Diagonals) {
  // a = torch.arange(1, 13).reshape(3, 4); torch.tril(a, d)
  struct Case {
    int64_t diagonal;
    std::vector<int64_t> expected;
  };
  const std::vector<Case> cases = {
      {0, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}},
      {1, {1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}},
      {-1, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}},
      {-2, {0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0}},
      {3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
      {int64_t{1} << 62, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
      {-3, std::vector<int64_t>(12, 0)},
      {-(int64_t{1} << 62), std::vector<int64_t>(12, 0)},
  };
  for (const Case& c : cases) {
    HostTensor a = make_tensor<int64_t>({3, 4}, arange(1, 12));
    HostTensor out = zeros_tensor(ScalarType::Long, {3, 4});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::tril.out", {r.tensor(a), r.i(c.diagonal), r.tensor(out)}), Error::Ok);
    EXPECT_EQ(out.values<int64_t>(), c.expected) << "diagonal " << c.diagonal;
  }
}

TEST(OpTrilTest, BatchedTallAndOtherDtypes) {
  // torch.tril(torch.arange(1, 25).reshape(2, 3, 4), -1)
  HostTensor b = make_tensor<int64_t>({2, 3, 4}, arange(1, 24));
  HostTensor out = zeros_tensor(ScalarType::Long, {2, 3, 4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::tril.out", {r.tensor(b), r.i(-1), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{0, 0, 0, 0, 5,  0, 0, 0, 9,  10, 0, 0,
                                                         0, 0, 0, 0, 17, 0, 0, 0, 21, 22, 0, 0}));
  // torch.tril(torch.arange(1, 13).reshape(4, 3).float(), 1)
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i + 1);
  HostTensor c = make_tensor<float>({4, 3}, v);
  HostTensor fout = zeros_tensor(ScalarType::Float, {4, 3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::tril.out", {r2.tensor(c), r2.i(1), r2.tensor(fout)}), Error::Ok);
  EXPECT_EQ(fout.values<float>(), (std::vector<float>{1, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // torch.tril(torch.ones(3, 2, dtype=torch.bool), 1) keeps everything
  HostTensor t = make_bool({3, 2}, {1, 1, 1, 1, 1, 1});
  HostTensor bout = make_bool({3, 2}, {0, 0, 0, 0, 0, 0});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::tril.out", {r3.tensor(t), r3.i(1), r3.tensor(bout)}), Error::Ok);
  EXPECT_EQ(bool_values(bout), (std::vector<int>{1, 1, 1, 1, 1, 1}));
  KernelRunner r4;
  ASSERT_EQ(r4.run("aten::tril.out", {r4.tensor(t), r4.i(-1), r4.tensor(bout)}), Error::Ok);
  EXPECT_EQ(bool_values(bout), (std::vector<int>{0, 0, 1, 0, 1, 1}));
}

TEST(OpTrilTest, ChannelsLastAndEmpty) {
  // x = torch.arange(1, 13).reshape(1, 2, 2, 3) stored channels-last; torch.tril(x)
  HostTensor x =
      make_tensor<int32_t>({1, 2, 2, 3}, {1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12}, {0, 2, 3, 1});
  HostTensor out = make_tensor<int32_t>({1, 2, 2, 3}, std::vector<int32_t>(12, -1), {0, 2, 3, 1});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::tril.out", {r.tensor(x), r.i(0), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{1, 7, 0, 0, 0, 0, 4, 10, 5, 11, 0, 0}));
  // torch.tril(torch.ones(0, 2), 1) is empty
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 2});
  HostTensor eout = zeros_tensor(ScalarType::Float, {0, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::tril.out", {r2.tensor(e), r2.i(1), r2.tensor(eout)}), Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{0, 2}));
}

TEST(OpTrilTest, Refusals) {
  // "tril: input tensor must have at least 2 dimensions"
  HostTensor v = make_tensor<int64_t>({3}, {1, 2, 3});
  HostTensor vout = zeros_tensor(ScalarType::Long, {3});
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::tril.out", {r.tensor(v), r.i(0), r.tensor(vout)}),
            Error::InvalidArgument);
  // "Expected out tensor to have dtype long int, but got float instead"
  HostTensor a = make_tensor<int64_t>({2, 3}, arange(0, 6));
  HostTensor fout = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::tril.out", {r2.tensor(a), r2.i(0), r2.tensor(fout)}),
            Error::InvalidType);
  // Out of another rank.
  HostTensor out3 = zeros_tensor(ScalarType::Long, {1, 2, 3});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::tril.out", {r3.tensor(a), r3.i(0), r3.tensor(out3)}),
            Error::InvalidArgument);
}

// ---- roll.out

std::vector<int64_t> run_roll(HostTensor& x, std::vector<int64_t> shifts,
                              std::vector<int64_t> dims) {
  HostTensor out = zeros_tensor(ScalarType::Long, std::vector<int32_t>(x.shape()));
  KernelRunner r;
  EXPECT_EQ(
      r.run("aten::roll.out", {r.tensor(x), r.int_list(shifts), r.int_list(dims), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.shape(), x.shape());
  return out.values<int64_t>();
}

TEST(OpRollTest, DimsAndFlattened) {
  // a = torch.arange(6).reshape(2, 3)
  HostTensor a = make_tensor<int64_t>({2, 3}, arange(0, 6));
  EXPECT_EQ(run_roll(a, {1}, {1}), (std::vector<int64_t>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(run_roll(a, {-4}, {1}), (std::vector<int64_t>{1, 2, 0, 4, 5, 3}));
  EXPECT_EQ(run_roll(a, {1, 1}, {0, 1}), (std::vector<int64_t>{5, 3, 4, 2, 0, 1}));
  // A dim listed twice rolls by the sum: torch.roll(a, (1, 1), (1, 1))
  EXPECT_EQ(run_roll(a, {1, 1}, {1, 1}), (std::vector<int64_t>{1, 2, 0, 4, 5, 3}));
  // torch.roll(a, 2**62, 1)
  EXPECT_EQ(run_roll(a, {int64_t{1} << 62}, {1}), (std::vector<int64_t>{2, 0, 1, 5, 3, 4}));
  // No dims: flattened. torch.roll(a, 2), torch.roll(a, -7)
  EXPECT_EQ(run_roll(a, {2}, {}), (std::vector<int64_t>{4, 5, 0, 1, 2, 3}));
  EXPECT_EQ(run_roll(a, {-7}, {}), (std::vector<int64_t>{1, 2, 3, 4, 5, 0}));
}

TEST(OpRollTest, Rank3) {
  // b = torch.arange(24).reshape(2, 3, 4)
  HostTensor b = make_tensor<int64_t>({2, 3, 4}, arange(0, 24));
  // torch.roll(b, (1, -1, 2), (0, 1, 2))
  EXPECT_EQ(run_roll(b, {1, -1, 2}, {0, 1, 2}),
            (std::vector<int64_t>{18, 19, 16, 17, 22, 23, 20, 21, 14, 15, 12, 13,
                                  6,  7,  4,  5,  10, 11, 8,  9,  2,  3,  0,  1}));
  // torch.roll(b, 2, -1)
  EXPECT_EQ(run_roll(b, {2}, {-1}),
            (std::vector<int64_t>{2,  3,  0,  1,  6,  7,  4,  5,  10, 11, 8,  9,
                                  14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21}));
}

TEST(OpRollTest, ChannelsLast) {
  // x = torch.arange(1, 13).reshape(1, 2, 2, 3) stored channels-last
  const std::vector<int32_t> stored = {1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12};
  for (int flat = 0; flat < 2; ++flat) {
    HostTensor x = make_tensor<int32_t>({1, 2, 2, 3}, stored, {0, 2, 3, 1});
    HostTensor out = make_tensor<int32_t>({1, 2, 2, 3}, std::vector<int32_t>(12), {0, 2, 3, 1});
    KernelRunner r;
    // torch.roll(x, 5) (row-major flattening) and torch.roll(x, (1, 2), (1, 3))
    ASSERT_EQ(r.run("aten::roll.out", {r.tensor(x), flat ? r.int_list({5}) : r.int_list({1, 2}),
                                       flat ? r.int_list({}) : r.int_list({1, 3}), r.tensor(out)}),
              Error::Ok);
    const std::vector<int32_t> expected =
        flat ? std::vector<int32_t>{8, 2, 9, 3, 10, 4, 11, 5, 12, 6, 1, 7}
             : std::vector<int32_t>{8, 2, 9, 3, 7, 1, 11, 5, 12, 6, 10, 4};
    EXPECT_EQ(out.values<int32_t>(), expected) << (flat ? "flattened" : "dims");
  }
}

TEST(OpRollTest, OtherDtypesZeroDimAndEmpty) {
  // torch.roll(torch.tensor([True, False, False]), 1)
  HostTensor b = make_bool({3}, {1, 0, 0});
  HostTensor bout = make_bool({3}, {0, 0, 0});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::roll.out", {r.tensor(b), r.int_list({1}), r.int_list({}), r.tensor(bout)}),
            Error::Ok);
  EXPECT_EQ(bool_values(bout), (std::vector<int>{0, 1, 0}));
  // torch.roll(torch.tensor([1.5, 2.5, 3.5], dtype=torch.float64), -1)
  HostTensor d = make_tensor<double>({3}, {1.5, 2.5, 3.5});
  HostTensor dout = zeros_tensor(ScalarType::Double, {3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::roll.out",
                   {r2.tensor(d), r2.int_list({-1}), r2.int_list({0}), r2.tensor(dout)}),
            Error::Ok);
  EXPECT_EQ(dout.values<double>(), (std::vector<double>{2.5, 3.5, 1.5}));
  // torch.roll(torch.tensor(5), 1) = 5
  HostTensor z = make_tensor<int64_t>({}, {5});
  EXPECT_EQ(run_roll(z, {1}, {}), (std::vector<int64_t>{5}));
  // torch.roll(torch.zeros(0, 3), 1, 1) is empty
  HostTensor e = zeros_tensor(ScalarType::Long, {0, 3});
  EXPECT_TRUE(run_roll(e, {1}, {1}).empty());
}

TEST(OpRollTest, Refusals) {
  HostTensor a = make_tensor<int64_t>({2, 3}, arange(0, 6));
  HostTensor out = zeros_tensor(ScalarType::Long, {2, 3});
  struct Case {
    std::vector<int64_t> shifts, dims;
    const char* why;
  };
  const std::vector<Case> cases = {
      {{}, {}, "`shifts` required"},
      {{1, 2}, {}, "shifts and dimensions must align. shifts: 2, dims:0"},
      {{1, 2}, {0}, "shifts and dimensions must align. shifts: 2, dims:1"},
      {{1}, {2}, "Dimension out of range"},
      {{1}, {-3}, "Dimension out of range"},
  };
  for (const Case& c : cases) {
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::roll.out",
                        {r.tensor(a), r.int_list(c.shifts), r.int_list(c.dims), r.tensor(out)}),
              Error::InvalidArgument)
        << c.why;
  }
  // "Dimension specified as 0 but tensor has no dimensions"
  HostTensor z = make_tensor<int64_t>({}, {5});
  HostTensor zout = zeros_tensor(ScalarType::Long, {});
  KernelRunner r;
  EXPECT_EQ(
      r.prepare("aten::roll.out", {r.tensor(z), r.int_list({1}), r.int_list({0}), r.tensor(zout)}),
      Error::InvalidArgument);
  // "Expected out tensor to have dtype long int, but got float instead"
  HostTensor fout = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::roll.out",
                       {r2.tensor(a), r2.int_list({1}), r2.int_list({0}), r2.tensor(fout)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
