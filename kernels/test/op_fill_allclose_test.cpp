// aten::fill.Tensor_out and aten::allclose.out. Expected values: torch
// 2.15.0 eager on CPU, torch.fill(x, value) and torch.allclose(a, b, rtol,
// atol, equal_nan) on the inputs of each case.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// ---- fill.Tensor_out

TEST(OpFillTensorTest, ValueIsReadInItsDtypeThenConverted) {
  // torch.fill(torch.zeros(2, dtype=torch.float64), torch.tensor(3.7)): the
  // float32 value 3.700000047683716
  HostTensor d = zeros_tensor(ScalarType::Double, {2});
  HostTensor v = make_tensor<float>({}, {3.7f});
  HostTensor dout = zeros_tensor(ScalarType::Double, {2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::fill.Tensor_out", {r.tensor(d), r.tensor(v), r.tensor(dout)}), Error::Ok);
  EXPECT_EQ(dout.values<double>(), (std::vector<double>{3.700000047683716, 3.700000047683716}));
  // torch.fill(torch.zeros(2, 2, dtype=torch.int32), torch.tensor(-2.9)) = -2
  HostTensor i = zeros_tensor(ScalarType::Int, {2, 2});
  HostTensor nf = make_tensor<float>({}, {-2.9f});
  HostTensor iout = zeros_tensor(ScalarType::Int, {2, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::fill.Tensor_out", {r2.tensor(i), r2.tensor(nf), r2.tensor(iout)}),
            Error::Ok);
  EXPECT_EQ(iout.values<int32_t>(), (std::vector<int32_t>{-2, -2, -2, -2}));
  // torch.fill(int32, torch.tensor(nan)) = INT32_MIN
  HostTensor nan = make_tensor<float>({}, {std::numeric_limits<float>::quiet_NaN()});
  HostTensor iout2 = zeros_tensor(ScalarType::Int, {2});
  HostTensor i2 = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::fill.Tensor_out", {r3.tensor(i2), r3.tensor(nan), r3.tensor(iout2)}),
            Error::Ok);
  EXPECT_EQ(iout2.values<int32_t>(), (std::vector<int32_t>{INT32_MIN, INT32_MIN}));
}

TEST(OpFillTensorTest, IntegerAndBoolValues) {
  // torch.fill(torch.zeros(2, dtype=torch.uint8), torch.tensor(-1)) = 255
  HostTensor u = zeros_tensor(ScalarType::Byte, {2});
  HostTensor m1 = make_tensor<int64_t>({}, {-1});
  HostTensor uout = zeros_tensor(ScalarType::Byte, {2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::fill.Tensor_out", {r.tensor(u), r.tensor(m1), r.tensor(uout)}), Error::Ok);
  EXPECT_EQ(uout.values<uint8_t>(), (std::vector<uint8_t>{255, 255}));
  // torch.fill(torch.zeros(2, dtype=torch.int8), torch.tensor(300)) = 44
  HostTensor c = zeros_tensor(ScalarType::Char, {2});
  HostTensor big = make_tensor<int64_t>({}, {300});
  HostTensor cout_ = zeros_tensor(ScalarType::Char, {2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::fill.Tensor_out", {r2.tensor(c), r2.tensor(big), r2.tensor(cout_)}),
            Error::Ok);
  EXPECT_EQ(cout_.values<int8_t>(), (std::vector<int8_t>{44, 44}));
  // torch.fill(torch.zeros(2, dtype=torch.bool), torch.tensor(0.5)) = True
  HostTensor b = make_bool({2}, {0, 0});
  HostTensor half = make_tensor<double>({}, {0.5});
  HostTensor bout = make_bool({2}, {0, 0});
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::fill.Tensor_out", {r3.tensor(b), r3.tensor(half), r3.tensor(bout)}),
            Error::Ok);
  EXPECT_EQ(bool_values(bout), (std::vector<int>{1, 1}));
  // torch.fill(torch.zeros(2), torch.tensor(True)) = 1.0
  HostTensor f = zeros_tensor(ScalarType::Float, {2});
  HostTensor t = make_bool({}, {1});
  HostTensor fout = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r4;
  ASSERT_EQ(r4.run("aten::fill.Tensor_out", {r4.tensor(f), r4.tensor(t), r4.tensor(fout)}),
            Error::Ok);
  EXPECT_EQ(fout.values<float>(), (std::vector<float>{1.0f, 1.0f}));
}

TEST(OpFillTensorTest, ZeroDimEmptyAndRefusals) {
  // torch.fill(torch.tensor(1.0), torch.tensor(7, dtype=torch.int8)) = 7.0
  HostTensor s = make_tensor<float>({}, {1.0f});
  HostTensor seven = make_tensor<int8_t>({}, {7});
  HostTensor sout = zeros_tensor(ScalarType::Float, {});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::fill.Tensor_out", {r.tensor(s), r.tensor(seven), r.tensor(sout)}),
            Error::Ok);
  EXPECT_EQ(sout.values<float>(), (std::vector<float>{7.0f}));
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 3});
  HostTensor eout = zeros_tensor(ScalarType::Float, {0, 3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::fill.Tensor_out", {r2.tensor(e), r2.tensor(seven), r2.tensor(eout)}),
            Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{0, 3}));
  // "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."
  HostTensor x = zeros_tensor(ScalarType::Float, {2});
  HostTensor v1 = make_tensor<float>({1}, {1.0f});
  HostTensor out = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare("aten::fill.Tensor_out", {r3.tensor(x), r3.tensor(v1), r3.tensor(out)}),
            Error::InvalidArgument);
  // "Expected out tensor to have dtype float, but got int instead"
  HostTensor iout = zeros_tensor(ScalarType::Int, {2});
  KernelRunner r4;
  EXPECT_EQ(r4.prepare("aten::fill.Tensor_out", {r4.tensor(x), r4.tensor(seven), r4.tensor(iout)}),
            Error::InvalidType);
  // Out of another rank.
  HostTensor out2 = zeros_tensor(ScalarType::Float, {2, 1});
  KernelRunner r5;
  EXPECT_EQ(r5.prepare("aten::fill.Tensor_out", {r5.tensor(x), r5.tensor(seven), r5.tensor(out2)}),
            Error::InvalidArgument);
}

// ---- allclose.out

// Runs allclose.out with a fresh one-element Bool out; -1 when the call fails.
int run_allclose(HostTensor& a, HostTensor& b, double rtol = 1e-5, double atol = 1e-8,
                 bool equal_nan = false) {
  HostTensor out = make_bool({}, {0});
  KernelRunner r;
  const Error e = r.run("aten::allclose.out", {r.tensor(a), r.tensor(b), r.d(rtol), r.d(atol),
                                               r.b(equal_nan), r.b(false), r.tensor(out)});
  if (e != Error::Ok) return -1;
  return bool_values(out)[0];
}

TEST(OpAllcloseTest, Tolerances) {
  HostTensor a = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor near = make_tensor<float>({2}, {1.0f, 2.0f + 1e-5f});
  HostTensor far = make_tensor<float>({2}, {1.0f, 2.0f + 1e-4f});
  // torch.allclose(a, a + [0, 1e-5]) True, + [0, 1e-4] False (defaults)
  EXPECT_EQ(run_allclose(a, near), 1);
  EXPECT_EQ(run_allclose(a, far), 0);
  HostTensor b = make_tensor<float>({2}, {1.0f, 2.1f});
  // torch.allclose(a, b, rtol=0.06) True, rtol=0.04 False
  EXPECT_EQ(run_allclose(a, b, 0.06), 1);
  EXPECT_EQ(run_allclose(a, b, 0.04), 0);
  // torch.allclose(a, b, rtol=0, atol=0.11) True, atol=0.09 False
  EXPECT_EQ(run_allclose(a, b, 0.0, 0.11), 1);
  EXPECT_EQ(run_allclose(a, b, 0.0, 0.09), 0);
  // Zero tolerances: exact equality only.
  HostTensor one = make_tensor<float>({1}, {1.0f});
  HostTensor one_ulp = make_tensor<float>({1}, {1.0000001f});
  EXPECT_EQ(run_allclose(one, one, 0.0, 0.0), 1);
  EXPECT_EQ(run_allclose(one, one_ulp, 0.0, 0.0), 0);
  // float64: torch.allclose(1.0, 1.0 + 1e-9, rtol=0, atol=1e-10) False, atol=1e-8 True
  HostTensor d1 = make_tensor<double>({1}, {1.0});
  HostTensor d2 = make_tensor<double>({1}, {1.0 + 1e-9});
  EXPECT_EQ(run_allclose(d1, d2, 0.0, 1e-10), 0);
  EXPECT_EQ(run_allclose(d1, d2, 0.0, 1e-8), 1);
}

TEST(OpAllcloseTest, NanAndInf) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  HostTensor a = make_tensor<float>({2}, {nan, 1.0f});
  HostTensor b = make_tensor<float>({2}, {nan, 1.0f});
  EXPECT_EQ(run_allclose(a, b), 0);                    // equal_nan=False
  EXPECT_EQ(run_allclose(a, b, 1e-5, 1e-8, true), 1);  // equal_nan=True
  HostTensor pinf = make_tensor<float>({1}, {inf});
  HostTensor ninf = make_tensor<float>({1}, {-inf});
  HostTensor big = make_tensor<float>({1}, {1e38f});
  EXPECT_EQ(run_allclose(pinf, pinf), 1);
  EXPECT_EQ(run_allclose(pinf, ninf), 0);
  EXPECT_EQ(run_allclose(pinf, big, 10.0), 0);  // |inf - 1e38| is not finite
}

TEST(OpAllcloseTest, IntegersBoolBroadcastAndEmpty) {
  // torch.allclose(torch.tensor([10, 20]), torch.tensor([10, 21])) False; rtol=0.05 True
  HostTensor i1 = make_tensor<int64_t>({2}, {10, 20});
  HostTensor i2 = make_tensor<int64_t>({2}, {10, 21});
  EXPECT_EQ(run_allclose(i1, i2), 0);
  EXPECT_EQ(run_allclose(i1, i2, 0.05), 1);
  // int8 100 vs -100: the difference is 200 (no wrap): atol=200 True, 199 False
  HostTensor p = make_tensor<int8_t>({1}, {100});
  HostTensor m = make_tensor<int8_t>({1}, {-100});
  EXPECT_EQ(run_allclose(p, m, 0.0, 200.0), 1);
  EXPECT_EQ(run_allclose(p, m, 0.0, 199.0), 0);
  // uint8 1 vs 2, atol=1: True both ways
  HostTensor u1 = make_tensor<uint8_t>({1}, {1});
  HostTensor u2 = make_tensor<uint8_t>({1}, {2});
  EXPECT_EQ(run_allclose(u1, u2, 0.0, 1.0), 1);
  EXPECT_EQ(run_allclose(u2, u1, 0.0, 1.0), 1);
  // Integers are compared in float32: 2**40 + 1 vs 2**40 with atol=0.5 is True.
  HostTensor l1 = make_tensor<int64_t>({1}, {(int64_t{1} << 40) + 1});
  HostTensor l2 = make_tensor<int64_t>({1}, {int64_t{1} << 40});
  EXPECT_EQ(run_allclose(l1, l2, 0.0, 0.5), 1);
  // torch.allclose(torch.tensor([True, False]), torch.tensor([True, True])) False; atol=1 True
  HostTensor b1 = make_bool({2}, {1, 0});
  HostTensor b2 = make_bool({2}, {1, 1});
  EXPECT_EQ(run_allclose(b1, b2), 0);
  EXPECT_EQ(run_allclose(b1, b2, 1e-5, 1.0), 1);
  // Broadcasting: [[1, 2], [1, 2]] vs [1, 2] True; [[1, 2], [1, 3]] vs [1, 2] False
  HostTensor row = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor same = make_tensor<float>({2, 2}, {1.0f, 2.0f, 1.0f, 2.0f});
  HostTensor diff = make_tensor<float>({2, 2}, {1.0f, 2.0f, 1.0f, 3.0f});
  EXPECT_EQ(run_allclose(same, row), 1);
  EXPECT_EQ(run_allclose(diff, row), 0);
  // torch.allclose(torch.tensor(1.0), torch.tensor([1.0, 1.0])) True (0-d broadcasts)
  HostTensor s = make_tensor<float>({}, {1.0f});
  HostTensor ones = make_tensor<float>({2}, {1.0f, 1.0f});
  EXPECT_EQ(run_allclose(s, ones), 1);
  // torch.allclose(torch.zeros(0), torch.zeros(0)) True
  HostTensor e1 = zeros_tensor(ScalarType::Float, {0});
  HostTensor e2 = zeros_tensor(ScalarType::Float, {0});
  EXPECT_EQ(run_allclose(e1, e2), 1);
}

TEST(OpAllcloseTest, Refusals) {
  HostTensor f = make_tensor<float>({2}, {1.0f, 2.0f});
  HostTensor d = make_tensor<double>({2}, {1.0, 2.0});
  HostTensor out = make_bool({}, {0});
  // "Float did not match Double"
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::allclose.out", {r.tensor(f), r.tensor(d), r.d(1e-5), r.d(1e-8),
                                             r.b(false), r.b(false), r.tensor(out)}),
            Error::InvalidType);
  // out must be Bool
  HostTensor fout = zeros_tensor(ScalarType::Float, {});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::allclose.out", {r2.tensor(f), r2.tensor(f), r2.d(1e-5), r2.d(1e-8),
                                              r2.b(false), r2.b(false), r2.tensor(fout)}),
            Error::InvalidType);
  // out must have one element; the inputs must broadcast.
  HostTensor out2 = make_bool({2}, {0, 0});
  KernelRunner r3;
  EXPECT_EQ(r3.run("aten::allclose.out", {r3.tensor(f), r3.tensor(f), r3.d(1e-5), r3.d(1e-8),
                                          r3.b(false), r3.b(false), r3.tensor(out2)}),
            Error::InvalidArgument);
  HostTensor f3 = make_tensor<float>({3}, {1.0f, 2.0f, 3.0f});
  KernelRunner r4;
  EXPECT_EQ(r4.run("aten::allclose.out", {r4.tensor(f), r4.tensor(f3), r4.d(1e-5), r4.d(1e-8),
                                          r4.b(false), r4.b(false), r4.tensor(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
