// aten::reflection_pad{1,2,3}d.out and aten::replication_pad{1,2,3}d.out.
// Expected values: torch 2.15.0 eager, the torch.ops.aten call written
// above each case; p = torch.arange(1., 13.).view(1, 3, 4),
// q = torch.arange(1, 25, dtype=torch.int32).view(1, 2, 3, 4).
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

std::vector<int32_t> shape_of(const HostTensor& t) {
  return std::vector<int32_t>(t.tensor().sizes().begin(), t.tensor().sizes().end());
}

// Runs `op` on self with `padding`; out is a dynamic Float/Int tensor.
Error pad(const char* op, HostTensor& self, std::vector<int64_t> padding, HostTensor& out) {
  KernelRunner r;
  return r.run(op, {r.tensor(self), r.int_list(std::move(padding)), r.tensor(out)});
}

std::vector<float> as_float(std::vector<int> v) { return std::vector<float>(v.begin(), v.end()); }

TEST(OpReflectionPadTest, OneD) {
  HostTensor p = make_tensor<float>({1, 3, 4}, iota(12, 1.0f));
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 3, 16});
  // torch.ops.aten.reflection_pad1d(p, [2, 1])
  ASSERT_EQ(pad("aten::reflection_pad1d.out", p, {2, 1}, out), Error::Ok);
  EXPECT_EQ(shape_of(out), (std::vector<int32_t>{1, 3, 7}));
  EXPECT_EQ(out.values<float>(),
            as_float({3, 2, 1, 2, 3, 4, 3, 7, 6, 5, 6, 7, 8, 7, 11, 10, 9, 10, 11, 12, 11}));
  // torch.ops.aten.reflection_pad1d(p, [-1, 3]): a negative pad crops
  ASSERT_EQ(pad("aten::reflection_pad1d.out", p, {-1, 3}, out), Error::Ok);
  EXPECT_EQ(out.values<float>(),
            as_float({2, 3, 4, 3, 2, 1, 6, 7, 8, 7, 6, 5, 10, 11, 12, 11, 10, 9}));
  // torch.ops.aten.replication_pad1d(p, [3, -2])
  ASSERT_EQ(pad("aten::replication_pad1d.out", p, {3, -2}, out), Error::Ok);
  EXPECT_EQ(out.values<float>(), as_float({1, 1, 1, 1, 2, 5, 5, 5, 5, 6, 9, 9, 9, 9, 10}));
}

TEST(OpReflectionPadTest, TwoD) {
  HostTensor p = make_tensor<float>({1, 3, 4}, iota(12, 1.0f));
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 8, 8});
  // torch.ops.aten.reflection_pad2d(p, [1, 2, 2, 0])
  ASSERT_EQ(pad("aten::reflection_pad2d.out", p, {1, 2, 2, 0}, out), Error::Ok);
  EXPECT_EQ(shape_of(out), (std::vector<int32_t>{1, 5, 7}));
  EXPECT_EQ(out.values<float>(),
            as_float({10, 9, 10, 11, 12, 11, 10, 6, 5, 6, 7,  8, 7,  6,  2,  1,  2, 3,
                      4,  3, 2,  6,  5,  6,  7,  8, 7, 6, 10, 9, 10, 11, 12, 11, 10}));
  // torch.ops.aten.replication_pad2d(p, [1, 2, 2, 0])
  ASSERT_EQ(pad("aten::replication_pad2d.out", p, {1, 2, 2, 0}, out), Error::Ok);
  EXPECT_EQ(out.values<float>(),
            as_float({1, 1, 2, 3, 4, 4, 4, 1, 1, 2, 3, 4, 4,  4,  1,  1,  2, 3,
                      4, 4, 4, 5, 5, 6, 7, 8, 8, 8, 9, 9, 10, 11, 12, 12, 12}));
  // Batched: torch.ops.aten.reflection_pad2d(torch.arange(8.).view(2, 1, 2, 2), [1, 1, 1, 1])
  HostTensor b = make_tensor<float>({2, 1, 2, 2}, iota(8));
  HostTensor bout = zeros_tensor(ScalarType::Float, {2, 1, 4, 4});
  ASSERT_EQ(pad("aten::reflection_pad2d.out", b, {1, 1, 1, 1}, bout), Error::Ok);
  EXPECT_EQ(bout.values<float>(), as_float({3, 2, 3, 2, 1, 0, 1, 0, 3, 2, 3, 2, 1, 0, 1, 0,
                                            7, 6, 7, 6, 5, 4, 5, 4, 7, 6, 7, 6, 5, 4, 5, 4}));
}

TEST(OpReflectionPadTest, ThreeDInt) {
  HostTensor q = make_tensor<int32_t>({1, 2, 3, 4}, iota<int32_t>(24, 1));
  HostTensor out = zeros_tensor(ScalarType::Int, {1, 4, 4, 5});
  // torch.ops.aten.reflection_pad3d(q, [1, 0, 0, 1, 1, 0])
  ASSERT_EQ(pad("aten::reflection_pad3d.out", q, {1, 0, 0, 1, 1, 0}, out), Error::Ok);
  EXPECT_EQ(shape_of(out), (std::vector<int32_t>{1, 3, 4, 5}));
  EXPECT_EQ(out.values<int32_t>(),
            (std::vector<int32_t>{14, 13, 14, 15, 16, 18, 17, 18, 19, 20, 22, 21, 22, 23, 24,
                                  18, 17, 18, 19, 20, 2,  1,  2,  3,  4,  6,  5,  6,  7,  8,
                                  10, 9,  10, 11, 12, 6,  5,  6,  7,  8,  14, 13, 14, 15, 16,
                                  18, 17, 18, 19, 20, 22, 21, 22, 23, 24, 18, 17, 18, 19, 20}));
  // torch.ops.aten.replication_pad3d(q, [0, 1, 1, 0, 0, 2])
  ASSERT_EQ(pad("aten::replication_pad3d.out", q, {0, 1, 1, 0, 0, 2}, out), Error::Ok);
  EXPECT_EQ(shape_of(out), (std::vector<int32_t>{1, 4, 4, 5}));
  EXPECT_EQ(out.values<int32_t>(),
            (std::vector<int32_t>{1,  2,  3,  4,  4,  1,  2,  3,  4,  4,  5,  6,  7,  8,  8,  9,
                                  10, 11, 12, 12, 13, 14, 15, 16, 16, 13, 14, 15, 16, 16, 17, 18,
                                  19, 20, 20, 21, 22, 23, 24, 24, 13, 14, 15, 16, 16, 13, 14, 15,
                                  16, 16, 17, 18, 19, 20, 20, 21, 22, 23, 24, 24, 13, 14, 15, 16,
                                  16, 13, 14, 15, 16, 16, 17, 18, 19, 20, 20, 21, 22, 23, 24, 24}));
}

TEST(OpReflectionPadTest, EmptyBatchIsAllowed) {
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 2, 3});
  HostTensor out = zeros_tensor(ScalarType::Float, {0, 2, 5});
  ASSERT_EQ(pad("aten::reflection_pad1d.out", e, {1, 1}, out), Error::Ok);
  EXPECT_EQ(shape_of(out), (std::vector<int32_t>{0, 2, 5}));
}

TEST(OpReflectionPadTest, RefusesWhatTorchRefuses) {
  HostTensor p = make_tensor<float>({1, 3, 4}, iota(12, 1.0f));
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 16, 16});
  // Reflection pads must be smaller than the dim: torch raises "Padding size
  // should be less than the corresponding input dimension".
  EXPECT_EQ(pad("aten::reflection_pad1d.out", p, {4, 0}, out), Error::InvalidArgument);
  EXPECT_EQ(pad("aten::reflection_pad2d.out", p, {0, 0, 0, 3}, out), Error::InvalidArgument);
  // Replication has no such limit: torch.ops.aten.replication_pad1d(p, [4, 0]) works.
  EXPECT_EQ(pad("aten::replication_pad1d.out", p, {4, 0}, out), Error::Ok);
  // No output left.
  EXPECT_EQ(pad("aten::replication_pad1d.out", p, {-2, -2}, out), Error::InvalidArgument);
  // An empty non-batch dim ("non-zero dimensions" in torch's message).
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 5});
  HostTensor eout = zeros_tensor(ScalarType::Float, {0, 7});
  EXPECT_EQ(pad("aten::reflection_pad1d.out", e, {1, 1}, eout), Error::InvalidArgument);
  // Huge pads are refused, not overflowed.
  EXPECT_EQ(pad("aten::replication_pad1d.out", p, {INT64_MAX, 1}, out), Error::InvalidArgument);
  KernelRunner r;  // wrong padding length, at load
  EXPECT_EQ(
      r.prepare("aten::reflection_pad2d.out", {r.tensor(p), r.int_list({1, 1}), r.tensor(out)}),
      Error::InvalidArgument);
  KernelRunner r2;  // wrong rank, at load
  HostTensor v = make_tensor<float>({4}, iota(4));
  EXPECT_EQ(
      r2.prepare("aten::reflection_pad1d.out", {r2.tensor(v), r2.int_list({1, 1}), r2.tensor(out)}),
      Error::InvalidArgument);
  KernelRunner r3;  // bool: torch has no bool kernel
  HostTensor bl = make_bool({1, 3}, {1, 0, 1});
  HostTensor bo = zeros_tensor(ScalarType::Bool, {1, 5});
  EXPECT_EQ(r3.prepare("aten::replication_pad1d.out",
                       {r3.tensor(bl), r3.int_list({1, 1}), r3.tensor(bo)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
