// The data-dependent indexing ops: aten::nonzero.out, masked_select.out,
// masked_scatter.out, repeat_interleave.Tensor_out. Expected values: torch
// 2.15.0 eager on the inputs named in each test.
#include <cmath>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpNonzeroTest, FloatWithNanAndBool) {
  // torch.nonzero(torch.tensor([[0., 1.5, 0.], [nan, 0., -2.]]))
  HostTensor x = make_tensor<float>({2, 3}, {0, 1.5f, 0, NAN, 0, -2});
  HostTensor out = zeros_tensor(ScalarType::Long, {6, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::nonzero.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0, 1, 2}));
  // torch.nonzero(b) for b = [[[T, F], [F, T]], [[F, F], [T, T]]]
  HostTensor b = make_bool({2, 2, 2}, {1, 0, 0, 1, 0, 0, 1, 1});
  HostTensor bout = zeros_tensor(ScalarType::Long, {8, 3});
  KernelRunner rb;
  ASSERT_EQ(rb.run("aten::nonzero.out", {rb.tensor(b), rb.tensor(bout)}), Error::Ok);
  EXPECT_EQ(bout.values<int64_t>(), (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1}));
}

TEST(OpNonzeroTest, ZeroDimEmptyAndLayout) {
  // torch.nonzero(torch.tensor(5)) has shape [1, 0]; of torch.tensor(0), [0, 0].
  for (int v : {5, 0}) {
    HostTensor x = make_tensor<int32_t>({}, {v});
    HostTensor out = zeros_tensor(ScalarType::Long, {1, 0});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::nonzero.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
    EXPECT_EQ(out.shape(), (std::vector<int32_t>{v != 0 ? 1 : 0, 0}));
  }
  HostTensor e = zeros_tensor(ScalarType::Byte, {0, 3});
  HostTensor eout = zeros_tensor(ScalarType::Long, {4, 2});
  KernelRunner re;
  ASSERT_EQ(re.run("aten::nonzero.out", {re.tensor(e), re.tensor(eout)}), Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{0, 2}));
  // [[0, 7], [3, 0]] stored column-major: rows in logical order [[0, 1], [1, 0]].
  HostTensor xt = make_tensor<int64_t>({2, 2}, {0, 3, 7, 0}, {1, 0});
  HostTensor tout = zeros_tensor(ScalarType::Long, {4, 2});
  KernelRunner rt;
  ASSERT_EQ(rt.run("aten::nonzero.out", {rt.tensor(xt), rt.tensor(tout)}), Error::Ok);
  EXPECT_EQ(tout.values<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0}));
}

TEST(OpNonzeroTest, Refusals) {
  HostTensor x = make_tensor<float>({2, 2}, {1, 1, 1, 0});
  KernelRunner r;
  // Static out (data-dependent length), Int out, rank-1 out: at load.
  HostTensor st = static_out(ScalarType::Long, {3, 2});
  EXPECT_EQ(r.prepare("aten::nonzero.out", {r.tensor(x), r.tensor(st)}), Error::NotSupported);
  HostTensor io = zeros_tensor(ScalarType::Int, {4, 2});
  EXPECT_EQ(r.prepare("aten::nonzero.out", {r.tensor(x), r.tensor(io)}), Error::InvalidType);
  HostTensor r1 = zeros_tensor(ScalarType::Long, {8});
  EXPECT_EQ(r.prepare("aten::nonzero.out", {r.tensor(x), r.tensor(r1)}), Error::InvalidArgument);
  // Capacity for 2 rows but 3 are needed: the resize fails in run.
  HostTensor small = zeros_tensor(ScalarType::Long, {2, 2});
  KernelRunner r2;
  EXPECT_NE(r2.run("aten::nonzero.out", {r2.tensor(x), r2.tensor(small)}), Error::Ok);
}

TEST(OpMaskedSelectTest, Broadcast) {
  // torch.masked_select(torch.arange(6.).reshape(2, 3), torch.tensor([True, False, True]))
  HostTensor s = make_tensor<float>({2, 3}, iota<float>(6));
  HostTensor m = make_bool({3}, {1, 0, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {6});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::masked_select.out", {r.tensor(s), r.tensor(m), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 2, 3, 5}));
  // torch.masked_select(torch.tensor([1, 2, 3], dtype=torch.int16), [[True], [False]])
  HostTensor si = make_tensor<int16_t>({3}, {1, 2, 3});
  HostTensor mi = make_bool({2, 1}, {1, 0});
  HostTensor outi = zeros_tensor(ScalarType::Short, {6});
  KernelRunner ri;
  ASSERT_EQ(ri.run("aten::masked_select.out", {ri.tensor(si), ri.tensor(mi), ri.tensor(outi)}),
            Error::Ok);
  EXPECT_EQ(outi.values<int16_t>(), (std::vector<int16_t>{1, 2, 3}));
  // 0-d self and mask.
  HostTensor s0 = make_tensor<double>({}, {4.5});
  HostTensor m0 = make_bool({}, {0});
  HostTensor out0 = zeros_tensor(ScalarType::Double, {1});
  KernelRunner r0;
  ASSERT_EQ(r0.run("aten::masked_select.out", {r0.tensor(s0), r0.tensor(m0), r0.tensor(out0)}),
            Error::Ok);
  EXPECT_EQ(out0.shape(), (std::vector<int32_t>{0}));
}

TEST(OpMaskedSelectTest, Refusals) {
  HostTensor s = make_tensor<float>({3}, {1, 2, 3});
  HostTensor mu = make_tensor<uint8_t>({3}, {1, 0, 1});
  HostTensor m = make_bool({3}, {1, 0, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  // torch: "masked_select: expected BoolTensor for mask".
  EXPECT_EQ(r.prepare("aten::masked_select.out", {r.tensor(s), r.tensor(mu), r.tensor(out)}),
            Error::InvalidType);
  HostTensor st = static_out(ScalarType::Float, {2});
  EXPECT_EQ(r.prepare("aten::masked_select.out", {r.tensor(s), r.tensor(m), r.tensor(st)}),
            Error::NotSupported);
  HostTensor m4 = make_bool({4}, {1, 0, 1, 1});
  KernelRunner r2;
  EXPECT_EQ(r2.run("aten::masked_select.out", {r2.tensor(s), r2.tensor(m4), r2.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpMaskedScatterTest, Values) {
  // torch.masked_scatter(torch.zeros(3), [[T, F, T], [F, T, T]], torch.arange(10.).reshape(2, 5) +
  // 1)
  HostTensor s = make_tensor<float>({3}, {0, 0, 0});
  HostTensor m = make_bool({2, 3}, {1, 0, 1, 0, 1, 1});
  HostTensor src = make_tensor<float>({2, 5}, iota<float>(10, 1));
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::masked_scatter.out", {r.tensor(s), r.tensor(m), r.tensor(src), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 0, 2, 0, 3, 4}));
  // torch.masked_scatter(torch.tensor([[1, 2], [3, 4]]), torch.tensor([False, True]),
  //                      torch.tensor([9, 8, 7]))
  HostTensor si = make_tensor<int64_t>({2, 2}, {1, 2, 3, 4});
  HostTensor mi = make_bool({2}, {0, 1});
  HostTensor srci = make_tensor<int64_t>({3}, {9, 8, 7});
  HostTensor outi = zeros_tensor(ScalarType::Long, {2, 2});
  KernelRunner ri;
  ASSERT_EQ(ri.run("aten::masked_scatter.out",
                   {ri.tensor(si), ri.tensor(mi), ri.tensor(srci), ri.tensor(outi)}),
            Error::Ok);
  EXPECT_EQ(outi.values<int64_t>(), (std::vector<int64_t>{1, 9, 3, 8}));
  // A column-major source is read in its logical order: [[9, 8], [7, 6]] -> 9, 8, 7.
  HostTensor srct = make_tensor<int64_t>({2, 2}, {9, 7, 8, 6}, {1, 0});
  KernelRunner rt;
  ASSERT_EQ(rt.run("aten::masked_scatter.out",
                   {rt.tensor(si), rt.tensor(mi), rt.tensor(srct), rt.tensor(outi)}),
            Error::Ok);
  EXPECT_EQ(outi.values<int64_t>(), (std::vector<int64_t>{1, 9, 3, 8}));
}

TEST(OpMaskedScatterTest, Refusals) {
  HostTensor s = make_tensor<float>({2, 3}, iota<float>(6));
  HostTensor m = make_bool({2, 3}, {1, 1, 1, 1, 1, 0});
  HostTensor src = make_tensor<float>({4}, iota<float>(4));
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  // torch: "Number of elements of source < number of ones in mask".
  KernelRunner r;
  EXPECT_EQ(
      r.run("aten::masked_scatter.out", {r.tensor(s), r.tensor(m), r.tensor(src), r.tensor(out)}),
      Error::InvalidArgument);
  HostTensor srcd = make_tensor<double>({6}, iota<double>(6));
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::masked_scatter.out",
                       {r2.tensor(s), r2.tensor(m), r2.tensor(srcd), r2.tensor(out)}),
            Error::InvalidType);
}

TEST(OpRepeatInterleaveTest, Values) {
  // torch.repeat_interleave(torch.tensor([2, 0, 1, 3]))
  HostTensor rep = make_tensor<int64_t>({4}, {2, 0, 1, 3});
  HostTensor out = zeros_tensor(ScalarType::Long, {10});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::repeat_interleave.Tensor_out", {r.tensor(rep), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{0, 0, 2, 3, 3, 3}));
  // Int repeats give Int; output_size matching the sum allows a static out.
  HostTensor repi = make_tensor<int32_t>({2}, {1, 2});
  HostTensor outi = static_out(ScalarType::Int, {3});
  KernelRunner ri;
  ASSERT_EQ(
      ri.run("aten::repeat_interleave.Tensor_out", {ri.tensor(repi), ri.i(3), ri.tensor(outi)}),
      Error::Ok);
  EXPECT_EQ(outi.values<int32_t>(), (std::vector<int32_t>{0, 1, 1}));
  HostTensor empty = zeros_tensor(ScalarType::Long, {0});
  HostTensor oute = zeros_tensor(ScalarType::Long, {2});
  KernelRunner re;
  ASSERT_EQ(
      re.run("aten::repeat_interleave.Tensor_out", {re.tensor(empty), re.none(), re.tensor(oute)}),
      Error::Ok);
  EXPECT_EQ(oute.shape(), (std::vector<int32_t>{0}));
}

TEST(OpRepeatInterleaveTest, Refusals) {
  HostTensor out = zeros_tensor(ScalarType::Long, {8});
  // torch: "repeats can not be negative".
  HostTensor neg = make_tensor<int64_t>({2}, {1, -1});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::repeat_interleave.Tensor_out", {r.tensor(neg), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
  // torch: "allocated size does not match required size" for output_size=2.
  HostTensor rep = make_tensor<int64_t>({2}, {1, 2});
  KernelRunner r2;
  EXPECT_EQ(r2.run("aten::repeat_interleave.Tensor_out", {r2.tensor(rep), r2.i(2), r2.tensor(out)}),
            Error::InvalidArgument);
  // Sum overflows int64.
  HostTensor big = make_tensor<int64_t>({2}, {INT64_MAX, 1});
  KernelRunner r3;
  EXPECT_EQ(
      r3.run("aten::repeat_interleave.Tensor_out", {r3.tensor(big), r3.none(), r3.tensor(out)}),
      Error::InvalidArgument);
  // At load: Float repeats ("not implemented for 'Float'"), 0-d or 2-D repeats
  // ("only accept 1D vector"), static out without output_size.
  KernelRunner r4;
  HostTensor f = make_tensor<float>({2}, {1, 2});
  HostTensor fout = zeros_tensor(ScalarType::Float, {8});
  EXPECT_EQ(
      r4.prepare("aten::repeat_interleave.Tensor_out", {r4.tensor(f), r4.none(), r4.tensor(fout)}),
      Error::InvalidType);
  HostTensor z = make_tensor<int64_t>({}, {3});
  EXPECT_EQ(
      r4.prepare("aten::repeat_interleave.Tensor_out", {r4.tensor(z), r4.none(), r4.tensor(out)}),
      Error::InvalidArgument);
  HostTensor st = static_out(ScalarType::Long, {3});
  EXPECT_EQ(
      r4.prepare("aten::repeat_interleave.Tensor_out", {r4.tensor(rep), r4.none(), r4.tensor(st)}),
      Error::NotSupported);
}

}  // namespace
}  // namespace testing
}  // namespace etr
