// aten::diagonal_copy.out, as_strided_copy.out, unfold_copy.out,
// view_as_real_copy.out and _conj_physical.out. Expected values: torch
// 2.15.0 eager, torch.ops.aten.<op> on the inputs named in each test.
#include <cstring>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// x = torch.arange(24.).reshape(2, 3, 4)
HostTensor arange_2x3x4() { return make_tensor<float>({2, 3, 4}, iota<float>(24)); }

TEST(OpDiagonalCopyTest, DimsAndOffsets) {
  HostTensor x = arange_2x3x4();
  struct Case {
    int64_t offset, dim1, dim2;
    std::vector<int32_t> shape;
    std::vector<float> expected;
  };
  const Case cases[] = {
      // diagonal_copy(x, 0, 0, 1)
      {0, 0, 1, {4, 2}, {0, 16, 1, 17, 2, 18, 3, 19}},
      // diagonal_copy(x, 1, -1, -2)
      {1, -1, -2, {2, 2}, {4, 9, 16, 21}},
      // diagonal_copy(x, -1, 1, 2)
      {-1, 1, 2, {2, 2}, {4, 9, 16, 21}},
      // diagonal_copy(x, 5, 1, 2) and (x, -5, 1, 2): empty
      {5, 1, 2, {2, 0}, {}},
      {-5, 1, 2, {2, 0}, {}},
      {INT64_MIN, 1, 2, {2, 0}, {}},
  };
  for (const Case& c : cases) {
    HostTensor out = zeros_tensor(ScalarType::Float, {4, 4});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::diagonal_copy.out",
                    {r.tensor(x), r.i(c.offset), r.i(c.dim1), r.i(c.dim2), r.tensor(out)}),
              Error::Ok)
        << c.offset;
    EXPECT_EQ(out.shape(), c.shape) << c.offset;
    EXPECT_EQ(out.values<float>(), c.expected) << c.offset;
  }
}

TEST(OpDiagonalCopyTest, IntAndNonDefaultLayout) {
  // diagonal_copy(torch.arange(12, dtype=torch.int32).reshape(3, 4), 2) -> [2, 7]
  HostTensor x = make_tensor<int32_t>({3, 4}, iota<int32_t>(12));
  HostTensor out = zeros_tensor(ScalarType::Int, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::diagonal_copy.out", {r.tensor(x), r.i(2), r.i(0), r.i(1), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{2, 7}));
  // The same matrix stored column-major (dim order 1, 0): same result.
  HostTensor xt = make_tensor<int32_t>({3, 4}, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, {1, 0});
  HostTensor out2 = zeros_tensor(ScalarType::Int, {3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::diagonal_copy.out",
                   {r2.tensor(xt), r2.i(2), r2.i(0), r2.i(1), r2.tensor(out2)}),
            Error::Ok);
  EXPECT_EQ(out2.values<int32_t>(), (std::vector<int32_t>{2, 7}));
}

TEST(OpDiagonalCopyTest, RefusedAtLoad) {
  HostTensor x = arange_2x3x4();
  HostTensor out = zeros_tensor(ScalarType::Float, {4, 4});
  HostTensor v = make_tensor<float>({3}, {1, 2, 3});
  HostTensor iout = zeros_tensor(ScalarType::Int, {4, 4});
  HostTensor out3 = zeros_tensor(ScalarType::Float, {4, 4, 4});
  KernelRunner r;
  // Same dim twice, dim out of range, 1-D self, wrong out dtype / rank.
  EXPECT_EQ(
      r.prepare("aten::diagonal_copy.out", {r.tensor(x), r.i(0), r.i(1), r.i(-2), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.prepare("aten::diagonal_copy.out", {r.tensor(x), r.i(0), r.i(0), r.i(3), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.prepare("aten::diagonal_copy.out", {r.tensor(v), r.i(0), r.i(0), r.i(1), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.prepare("aten::diagonal_copy.out", {r.tensor(x), r.i(0), r.i(0), r.i(1), r.tensor(iout)}),
      Error::InvalidType);
  EXPECT_EQ(
      r.prepare("aten::diagonal_copy.out", {r.tensor(x), r.i(0), r.i(0), r.i(1), r.tensor(out3)}),
      Error::InvalidArgument);
}

TEST(OpAsStridedCopyTest, Values) {
  HostTensor x = make_tensor<float>({10}, iota<float>(10));
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 2});
  KernelRunner r;
  // as_strided_copy(torch.arange(10.), [3, 2], [2, 3], 1)
  ASSERT_EQ(r.run("aten::as_strided_copy.out",
                  {r.tensor(x), r.int_list({3, 2}), r.int_list({2, 3}), r.i(1), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 4, 3, 6, 5, 8}));
  // as_strided_copy(torch.arange(10.), [], [], 7) -> 7.
  HostTensor out0 = zeros_tensor(ScalarType::Float, {});
  KernelRunner r0;
  ASSERT_EQ(r0.run("aten::as_strided_copy.out",
                   {r0.tensor(x), r0.int_list({}), r0.int_list({}), r0.i(7), r0.tensor(out0)}),
            Error::Ok);
  EXPECT_EQ(out0.values<float>(), (std::vector<float>{7}));
  // Empty size with an offset past the end reads nothing (torch allows it).
  HostTensor oute = zeros_tensor(ScalarType::Float, {2});
  KernelRunner re;
  ASSERT_EQ(re.run("aten::as_strided_copy.out",
                   {re.tensor(x), re.int_list({0}), re.int_list({1}), re.i(10), re.tensor(oute)}),
            Error::Ok);
  EXPECT_EQ(oute.shape(), (std::vector<int32_t>{0}));
  // storage_offset None means 0; Long data: [[0, 2], [1, 3]].
  HostTensor xl = make_tensor<int64_t>({2, 2}, {0, 1, 2, 3});
  HostTensor outl = zeros_tensor(ScalarType::Long, {2, 2});
  KernelRunner rl;
  ASSERT_EQ(rl.run("aten::as_strided_copy.out", {rl.tensor(xl), rl.int_list({2, 2}),
                                                 rl.int_list({1, 2}), rl.none(), rl.tensor(outl)}),
            Error::Ok);
  EXPECT_EQ(outl.values<int64_t>(), (std::vector<int64_t>{0, 2, 1, 3}));
}

TEST(OpAsStridedCopyTest, OutOfBoundsAndBadArguments) {
  HostTensor x = make_tensor<float>({4}, iota<float>(4));
  HostTensor out = zeros_tensor(ScalarType::Float, {2});
  // torch: "setStorage: ... out of bounds for storage of size 16" for
  // as_strided_copy(torch.arange(4.), [2], [2], 3).
  KernelRunner r;
  EXPECT_EQ(r.run("aten::as_strided_copy.out",
                  {r.tensor(x), r.int_list({2}), r.int_list({2}), r.i(3), r.tensor(out)}),
            Error::InvalidArgument);
  // Negative stride, negative offset, overflowing span.
  KernelRunner r2;
  EXPECT_EQ(r2.run("aten::as_strided_copy.out",
                   {r2.tensor(x), r2.int_list({2}), r2.int_list({-1}), r2.i(3), r2.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r3;
  EXPECT_EQ(r3.run("aten::as_strided_copy.out",
                   {r3.tensor(x), r3.int_list({2}), r3.int_list({1}), r3.i(-1), r3.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r4;
  EXPECT_EQ(
      r4.run("aten::as_strided_copy.out",
             {r4.tensor(x), r4.int_list({2}), r4.int_list({INT64_MAX}), r4.i(0), r4.tensor(out)}),
      Error::InvalidArgument);
  // size and stride lengths differ: refused at load.
  KernelRunner r5;
  EXPECT_EQ(r5.prepare("aten::as_strided_copy.out", {r5.tensor(x), r5.int_list({2}),
                                                     r5.int_list({1, 1}), r5.i(0), r5.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpUnfoldCopyTest, Values) {
  struct Case {
    std::vector<int32_t> in_shape;
    int64_t dim, size, step;
    std::vector<int32_t> shape;
    std::vector<int64_t> expected;
  };
  const Case cases[] = {
      // unfold_copy(torch.arange(7), 0, 3, 2)
      {{7}, 0, 3, 2, {3, 3}, {0, 1, 2, 2, 3, 4, 4, 5, 6}},
      // unfold_copy(torch.arange(12).reshape(3, 4), -1, 2, 1)
      {{3, 4}, -1, 2, 1, {3, 3, 2}, {0, 1, 1, 2, 2, 3, 4, 5, 5, 6, 6, 7, 8, 9, 9, 10, 10, 11}},
      // unfold_copy(torch.arange(12).reshape(3, 4), 0, 2, 1)
      {{3, 4}, 0, 2, 1, {2, 4, 2}, {0, 4, 1, 5, 2, 6, 3, 7, 4, 8, 5, 9, 6, 10, 7, 11}},
      // unfold_copy(torch.tensor(3), 0, 1, 1) -> [3]; size 0 -> empty
      {{}, 0, 1, 1, {1}, {0}},
      {{}, -1, 0, 1, {0}, {}},
  };
  for (const Case& c : cases) {
    int64_t numel = 1;
    for (int32_t s : c.in_shape) numel *= s;
    HostTensor x = make_tensor<int64_t>(c.in_shape, iota<int64_t>(static_cast<size_t>(numel)));
    HostTensor out = zeros_tensor(ScalarType::Long, std::vector<int32_t>(c.shape.size(), 8));
    KernelRunner r;
    ASSERT_EQ(r.run("aten::unfold_copy.out",
                    {r.tensor(x), r.i(c.dim), r.i(c.size), r.i(c.step), r.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(out.shape(), c.shape);
    EXPECT_EQ(out.values<int64_t>(), c.expected);
  }
}

TEST(OpUnfoldCopyTest, Refusals) {
  HostTensor x = make_tensor<float>({5}, iota<float>(5));
  HostTensor out = zeros_tensor(ScalarType::Float, {4, 4});
  KernelRunner r;
  // step 0, negative size, bad dim: at load.
  EXPECT_EQ(
      r.prepare("aten::unfold_copy.out", {r.tensor(x), r.i(0), r.i(2), r.i(0), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.prepare("aten::unfold_copy.out", {r.tensor(x), r.i(0), r.i(-1), r.i(1), r.tensor(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(
      r.prepare("aten::unfold_copy.out", {r.tensor(x), r.i(1), r.i(2), r.i(1), r.tensor(out)}),
      Error::InvalidArgument);
  // size larger than the dim: in run.
  KernelRunner r2;
  EXPECT_EQ(
      r2.run("aten::unfold_copy.out", {r2.tensor(x), r2.i(0), r2.i(6), r2.i(1), r2.tensor(out)}),
      Error::InvalidArgument);
}

// c = torch.tensor([[1+2j, 3-4j], [-5+0.5j, -1j]], dtype=torch.complex64)
HostTensor complex_2x2(ScalarType dtype) {
  const double parts[] = {1, 2, 3, -4, -5, 0.5, 0, -1};
  if (dtype == ScalarType::ComplexDouble) {
    return *HostTensor::from_bytes(dtype, {2, 2}, parts, sizeof(parts));
  }
  float f[8];
  for (int i = 0; i < 8; ++i) f[i] = static_cast<float>(parts[i]);
  return *HostTensor::from_bytes(dtype, {2, 2}, f, sizeof(f));
}

TEST(OpComplexTest, ViewAsRealCopy) {
  HostTensor c = complex_2x2(ScalarType::ComplexFloat);
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::view_as_real_copy.out", {r.tensor(c), r.tensor(out)}), Error::Ok);
  // view_as_real_copy(c)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, -4, -5, 0.5f, 0, -1}));
  HostTensor cd = complex_2x2(ScalarType::ComplexDouble);
  HostTensor outd = zeros_tensor(ScalarType::Double, {2, 2, 2});
  KernelRunner rd;
  ASSERT_EQ(rd.run("aten::view_as_real_copy.out", {rd.tensor(cd), rd.tensor(outd)}), Error::Ok);
  EXPECT_EQ(outd.values<double>(), (std::vector<double>{1, 2, 3, -4, -5, 0.5, 0, -1}));
  // Refused at load: real self, mismatched out dtype, wrong out rank.
  HostTensor f = make_tensor<float>({2}, {1, 2});
  HostTensor outf = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::view_as_real_copy.out", {r2.tensor(f), r2.tensor(outf)}),
            Error::InvalidType);
  EXPECT_EQ(r2.prepare("aten::view_as_real_copy.out", {r2.tensor(cd), r2.tensor(out)}),
            Error::InvalidType);
  EXPECT_EQ(r2.prepare("aten::view_as_real_copy.out", {r2.tensor(c), r2.tensor(outf)}),
            Error::InvalidArgument);
}

TEST(OpComplexTest, ConjPhysical) {
  for (ScalarType t : {ScalarType::ComplexFloat, ScalarType::ComplexDouble}) {
    HostTensor c = complex_2x2(t);
    HostTensor out = zeros_tensor(t, {2, 2});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::_conj_physical.out", {r.tensor(c), r.tensor(out)}), Error::Ok);
    // torch.view_as_real(torch._conj_physical(c))
    const double expected[] = {1, -2, 3, 4, -5, -0.5, 0, 1};
    for (int i = 0; i < 8; ++i) {
      const double got = t == ScalarType::ComplexFloat
                             ? reinterpret_cast<const float*>(out.data())[i]
                             : reinterpret_cast<const double*>(out.data())[i];
      EXPECT_EQ(got, expected[i]) << to_string(t) << " part " << i;
    }
  }
  // Real dtypes are copied: torch._conj_physical(torch.tensor([1, 2])) -> [1, 2].
  HostTensor i = make_tensor<int32_t>({2}, {1, 2});
  HostTensor iout = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_conj_physical.out", {r.tensor(i), r.tensor(iout)}), Error::Ok);
  EXPECT_EQ(iout.values<int32_t>(), (std::vector<int32_t>{1, 2}));
  HostTensor fout = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::_conj_physical.out", {r2.tensor(i), r2.tensor(fout)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
