// Bool tensors whose storage bytes are neither 0 nor 1 (a hostile program
// can alias a Bool tensor with other data). Kernels must read Bool storage
// as bytes (!= 0) rather than as C++ bool, which would be undefined
// behaviour (UBSan: "load of value 255, which is not a valid value for type
// 'bool'"); this file runs clean under UBSan.
//
// Expected values: every nonzero byte counts as true, so each result is what
// PyTorch gives for the same tensor with True in those elements (written by
// reasoning from torch semantics on the equivalent valid bool tensor, e.g.
// torch.where(torch.tensor([True, False, True, True]), x, y)).
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// A Bool tensor holding exactly `bytes` as its storage.
HostTensor bool_bytes(std::vector<int32_t> sizes, const std::vector<uint8_t>& bytes) {
  Result<HostTensor> t =
      HostTensor::from_bytes(ScalarType::Bool, std::move(sizes), bytes.data(), bytes.size());
  if (!t.ok()) {
    ADD_FAILURE() << "cannot build the Bool tensor: " << to_string(t.error());
    return zeros_tensor(ScalarType::Bool, {0});
  }
  return *std::move(t);
}

// Truth of each element of a Bool tensor (byte != 0).
std::vector<int> truth(HostTensor& t) {
  std::vector<int> v = bool_values(t);
  for (int& x : v) x = x != 0 ? 1 : 0;
  return v;
}

TEST(OpBoolBytesTest, Where) {
  HostTensor c = bool_bytes({4}, {2, 0, 255, 1});
  HostTensor x = make_tensor<float>({4}, {1, 2, 3, 4});
  HostTensor y = make_tensor<float>({4}, {10, 20, 30, 40});
  HostTensor out = zeros_tensor(ScalarType::Float, {4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::where.self_out", {r.tensor(c), r.tensor(x), r.tensor(y), r.tensor(out)}),
            Error::Ok);
  // torch.where([T, F, T, T], x, y)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 20, 3, 4}));
}

TEST(OpBoolBytesTest, LogicalAndOrXor) {
  HostTensor a = bool_bytes({4}, {2, 255, 0, 2});
  HostTensor b = bool_bytes({4}, {255, 2, 2, 0});
  HostTensor land = zeros_tensor(ScalarType::Bool, {4});
  HostTensor lor = zeros_tensor(ScalarType::Bool, {4});
  HostTensor lxor = zeros_tensor(ScalarType::Bool, {4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::logical_and.out", {r.tensor(a), r.tensor(b), r.tensor(land)}), Error::Ok);
  ASSERT_EQ(r.run("aten::logical_or.out", {r.tensor(a), r.tensor(b), r.tensor(lor)}), Error::Ok);
  ASSERT_EQ(r.run("aten::logical_xor.out", {r.tensor(a), r.tensor(b), r.tensor(lxor)}), Error::Ok);
  // a = [T, T, F, T], b = [T, T, T, F]
  EXPECT_EQ(bool_values(land), (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(bool_values(lor), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(bool_values(lxor), (std::vector<int>{0, 0, 1, 1}));
}

TEST(OpBoolBytesTest, Eq) {
  HostTensor a = bool_bytes({4}, {2, 255, 0, 1});
  HostTensor b = bool_bytes({4}, {255, 1, 0, 0});
  HostTensor out = zeros_tensor(ScalarType::Bool, {4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::eq.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  // [T, T, F, T] == [T, T, F, F]
  EXPECT_EQ(bool_values(out), (std::vector<int>{1, 1, 1, 0}));
}

TEST(OpBoolBytesTest, Any) {
  HostTensor x = bool_bytes({2, 3}, {0, 0, 255, 0, 0, 0});
  HostTensor all = zeros_tensor(ScalarType::Bool, {});
  HostTensor rows = zeros_tensor(ScalarType::Bool, {2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::any.all_out", {r.tensor(x), r.tensor(all)}), Error::Ok);
  ASSERT_EQ(r.run("aten::any.out", {r.tensor(x), r.i(1), r.b(false), r.tensor(rows)}), Error::Ok);
  // torch.any([[F, F, T], [F, F, F]]) and .any(1)
  EXPECT_EQ(bool_values(all), (std::vector<int>{1}));
  EXPECT_EQ(bool_values(rows), (std::vector<int>{1, 0}));
}

TEST(OpBoolBytesTest, SumAndCumsum) {
  HostTensor x = bool_bytes({2, 2}, {2, 255, 0, 1});
  HostTensor total = zeros_tensor(ScalarType::Long, {});
  HostTensor rows = zeros_tensor(ScalarType::Long, {2});
  HostTensor cum = zeros_tensor(ScalarType::Long, {2, 2});
  KernelRunner r;
  const int64_t kLong = static_cast<int64_t>(ScalarType::Long);
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.none(), r.b(false), r.i(kLong), r.tensor(total)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::sum.IntList_out",
                  {r.tensor(x), r.int_list({1}), r.b(false), r.i(kLong), r.tensor(rows)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::cumsum.out", {r.tensor(x), r.i(1), r.i(kLong), r.tensor(cum)}), Error::Ok);
  // x = [[T, T], [F, T]]: torch.sum(x) = 3, x.sum(1) = [2, 1], x.cumsum(1)
  EXPECT_EQ(total.values<int64_t>(), (std::vector<int64_t>{3}));
  EXPECT_EQ(rows.values<int64_t>(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(cum.values<int64_t>(), (std::vector<int64_t>{1, 2, 0, 1}));
}

TEST(OpBoolBytesTest, MaskedFill) {
  HostTensor x = make_tensor<float>({3}, {1, 2, 3});
  HostTensor m = bool_bytes({3}, {255, 0, 2});
  HostTensor out = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::masked_fill.Scalar_out", {r.tensor(x), r.tensor(m), r.d(-1.0), r.tensor(out)}),
      Error::Ok);
  // x.masked_fill([T, F, T], -1)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-1, 2, -1}));
}

TEST(OpBoolBytesTest, Nonzero) {
  HostTensor x = bool_bytes({2, 2}, {2, 0, 0, 255});
  HostTensor out = zeros_tensor(ScalarType::Long, {4, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::nonzero.out", {r.tensor(x), r.tensor(out)}), Error::Ok);
  // torch.nonzero([[T, F], [F, T]])
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{0, 0, 1, 1}));
}

TEST(OpBoolBytesTest, IndexWithMask) {
  HostTensor x = make_tensor<float>({3, 2}, iota(6));
  HostTensor m = bool_bytes({3}, {2, 0, 255});
  HostTensor out = zeros_tensor(ScalarType::Float, {3, 2});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::index.Tensor_out", {r.tensor(x), r.tensor_list({&m}, true), r.tensor(out)}),
      Error::Ok);
  // x[[T, F, T]]
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 4, 5}));
}

TEST(OpBoolBytesTest, ToCopyToFloat) {
  HostTensor x = bool_bytes({4}, {2, 0, 255, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(x), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  // torch.tensor([T, F, T, T]).to(torch.float)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 0, 1, 1}));
}

TEST(OpBoolBytesTest, MinMaxReductions) {
  HostTensor x = bool_bytes({2, 2}, {0, 2, 0, 0});
  HostTensor amax = zeros_tensor(ScalarType::Bool, {2});
  HostTensor max_all = zeros_tensor(ScalarType::Bool, {});
  HostTensor y = bool_bytes({3}, {255, 2, 1});
  HostTensor min_all = zeros_tensor(ScalarType::Bool, {});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::amax.out", {r.tensor(x), r.int_list({1}), r.b(false), r.tensor(amax)}),
            Error::Ok);
  ASSERT_EQ(r.run("aten::max.unary_out", {r.tensor(x), r.tensor(max_all)}), Error::Ok);
  ASSERT_EQ(r.run("aten::min.unary_out", {r.tensor(y), r.tensor(min_all)}), Error::Ok);
  // x = [[F, T], [F, F]]: x.amax(1) = [T, F], x.max() = T; [T, T, T].min() = T
  EXPECT_EQ(bool_values(amax), (std::vector<int>{1, 0}));
  EXPECT_EQ(bool_values(max_all), (std::vector<int>{1}));
  EXPECT_EQ(bool_values(min_all), (std::vector<int>{1}));
}

TEST(OpBoolBytesTest, Allclose) {
  HostTensor a = bool_bytes({3}, {2, 0, 255});
  HostTensor b = bool_bytes({3}, {1, 0, 1});
  HostTensor out = make_bool({}, {0});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::allclose.out", {r.tensor(a), r.tensor(b), r.d(1e-5), r.d(1e-8), r.b(false),
                                         r.b(false), r.tensor(out)}),
            Error::Ok);
  // [T, F, T] and [T, F, T] are equal
  EXPECT_EQ(bool_values(out), (std::vector<int>{1}));
}

TEST(OpBoolBytesTest, ScatterAddAndIndexPutAccumulate) {
  // self = [T, F, T]; element 2 is not written, so its byte is copied as is.
  HostTensor self = bool_bytes({3}, {2, 0, 255});
  HostTensor index = make_tensor<int64_t>({2}, {0, 1});
  HostTensor src = bool_bytes({2}, {0, 255});
  HostTensor out = zeros_tensor(ScalarType::Bool, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::scatter_add.out",
                  {r.tensor(self), r.i(0), r.tensor(index), r.tensor(src), r.tensor(out)}),
            Error::Ok);
  // self.scatter_add(0, [0, 1], [F, T]) = [T or F, F or T, T] (bool add is "or")
  EXPECT_EQ(truth(out), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(bool_values(out)[0], 1);
  EXPECT_EQ(bool_values(out)[1], 1);

  HostTensor put_out = zeros_tensor(ScalarType::Bool, {3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::index_put.out", {r2.tensor(self), r2.tensor_list({&index}, true),
                                           r2.tensor(src), r2.b(true), r2.tensor(put_out)}),
            Error::Ok);
  // self.index_put([[0, 1]], [F, T], accumulate=True) = [T, T, T]
  EXPECT_EQ(truth(put_out), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(bool_values(put_out)[0], 1);
  EXPECT_EQ(bool_values(put_out)[1], 1);
}

TEST(OpBoolBytesTest, FillWithBoolValue) {
  HostTensor x = make_tensor<float>({3}, {5, 6, 7});
  HostTensor v = bool_bytes({}, {2});
  HostTensor out = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::fill.Tensor_out", {r.tensor(x), r.tensor(v), r.tensor(out)}), Error::Ok);
  // x.fill_(torch.tensor(True))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 1, 1}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
