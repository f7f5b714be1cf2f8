// prod in Half / BFloat16 and var / var_mean, computed the way PyTorch does
// on CPU. Expected values are what torch 2.15.0 eager gives (AVX2 build):
//   * prod into Half / BFloat16 rounds every product to the dtype, in ATen's
//     order (runs of 64+ contiguous elements go through 64 running products);
//   * var_mean takes mean and variance by Welford's updates in double, in the
//     input's memory order (an inf followed by other elements: mean NaN);
//     var does too when its out has several elements, and two passes when it
//     has one (the mean rounded like torch.mean).
// Half and BFloat16 tensors are written as their bit patterns, e.g.
//   x = torch.tensor([1.3] * 7).to(torch.bfloat16)
//   x.view(torch.int16), torch.prod(x).view(torch.int16)
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

HostTensor bits_tensor(ScalarType dtype, std::vector<int32_t> sizes,
                       const std::vector<uint16_t>& bits, std::vector<uint8_t> dim_order = {}) {
  Result<HostTensor> t = HostTensor::from_bytes(
      dtype, std::move(sizes), bits.data(), bits.size() * sizeof(uint16_t), std::move(dim_order));
  EXPECT_TRUE(t.ok());
  return *std::move(t);
}

// n bit patterns base + (i * mul) % mod, i = 0 .. n-1 (in storage order);
// in Python: torch.tensor([base + (i * mul) % mod for i in range(n)],
//                         dtype=torch.int16).view(dtype)
std::vector<uint16_t> formula_bits(int n, uint16_t base, int mod, int mul) {
  std::vector<uint16_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<uint16_t>(base + (i * mul) % mod);
  return v;
}

std::vector<uint16_t> prod_all(HostTensor& x, ScalarType out_dtype) {
  HostTensor out = zeros_tensor(out_dtype, {}, ShapeDynamism::Static);
  KernelRunner r;
  EXPECT_EQ(r.run("aten::prod.out", {r.tensor(x), r.none(), r.tensor(out)}), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable");
  return out.values<uint16_t>();
}

std::vector<uint16_t> prod_dim(HostTensor& x, int64_t dim, bool keepdim,
                               std::vector<int32_t> out_sizes) {
  HostTensor out = zeros_tensor(x.tensor().dtype(), std::move(out_sizes), ShapeDynamism::Static);
  KernelRunner r;
  EXPECT_EQ(
      r.run("aten::prod.int_out", {r.tensor(x), r.i(dim), r.b(keepdim), r.none(), r.tensor(out)}),
      Error::Ok);
  return out.values<uint16_t>();
}

// ---------------------------------------------------------------- prod

TEST(OpProdRoundingTest, BFloat16RoundsEveryProduct) {
  // x = torch.tensor([1.3] * 7).to(torch.bfloat16): torch.prod(x) is 6.125
  // (16580); rounding the float product once would give 6.15625 (16581).
  HostTensor x = bits_tensor(ScalarType::BFloat16, {7}, std::vector<uint16_t>(7, 16294));
  EXPECT_EQ(prod_all(x, ScalarType::BFloat16), (std::vector<uint16_t>{16580}));
  // torch.tensor([1.1] * 9).to(torch.bfloat16).prod(): 2.375 (16408; once: 16409)
  HostTensor y = bits_tensor(ScalarType::BFloat16, {3, 3}, std::vector<uint16_t>(9, 16269));
  EXPECT_EQ(prod_all(y, ScalarType::BFloat16), (std::vector<uint16_t>{16408}));
}

TEST(OpProdRoundingTest, HalfRoundsEveryProduct) {
  // h = torch.tensor([1.1, 1.3, 0.7, 1.9, 1.05, 0.95, 1.7]).to(torch.float16)
  // torch.prod(h): 17012 (rounding once: 17011)
  HostTensor h =
      bits_tensor(ScalarType::Half, {7}, {15462, 15667, 14746, 16282, 15411, 15258, 16077});
  EXPECT_EQ(prod_all(h, ScalarType::Half), (std::vector<uint16_t>{17012}));
  // torch.tensor([300., 300., 0.01]).to(torch.float16).prod(): 90000 is inf
  // in Half, so the product stays inf (rounding once would give 900.19).
  HostTensor o = bits_tensor(ScalarType::Half, {3}, {23728, 23728, 8479});
  EXPECT_EQ(prod_all(o, ScalarType::Half), (std::vector<uint16_t>{31744}));
  // torch.tensor([inf, 0., 2.]).to(torch.bfloat16).prod(): NaN (0x7fc0)
  HostTensor n = bits_tensor(ScalarType::BFloat16, {3}, {32640, 0, 16384});
  EXPECT_EQ(prod_all(n, ScalarType::BFloat16), (std::vector<uint16_t>{32704}));
}

TEST(OpProdRoundingTest, LongContiguousRunsUseTheBlockedOrder) {
  // x = bits 0x3F50 + (i * 7) % 40, 300 bfloat16 values in [0.8125, 0.965]
  HostTensor x = bits_tensor(ScalarType::BFloat16, {300}, formula_bits(300, 0x3F50, 40, 7));
  EXPECT_EQ(prod_all(x, ScalarType::BFloat16), (std::vector<uint16_t>{9624}));  // x.prod()
  // x.reshape(2, 150).prod(1): each row is a contiguous run of 150
  HostTensor rows = bits_tensor(ScalarType::BFloat16, {2, 150}, formula_bits(300, 0x3F50, 40, 7));
  EXPECT_EQ(prod_dim(rows, 1, false, {2}), (std::vector<uint16_t>{12932, 12948}));
  // x.reshape(150, 2).prod(0): stride 2, multiplied in order
  HostTensor cols = bits_tensor(ScalarType::BFloat16, {150, 2}, formula_bits(300, 0x3F50, 40, 7));
  EXPECT_EQ(prod_dim(cols, 0, false, {2}), (std::vector<uint16_t>{12846, 13023}));
  // h = bits 0x3B00 + (i * 37) % 0x180 (float16): h.prod(),
  // h.reshape(2, 100).prod(1, keepdim=True)
  HostTensor h = bits_tensor(ScalarType::Half, {200}, formula_bits(200, 0x3B00, 0x180, 37));
  EXPECT_EQ(prod_all(h, ScalarType::Half), (std::vector<uint16_t>{8240}));
  HostTensor h2 = bits_tensor(ScalarType::Half, {2, 100}, formula_bits(200, 0x3B00, 0x180, 37));
  EXPECT_EQ(prod_dim(h2, 1, true, {2, 1}), (std::vector<uint16_t>{11467, 12028}));
}

TEST(OpProdRoundingTest, ChannelsLastFollowsMemoryOrder) {
  // m = bits 0x3F50 + (i * 7) % 40 (140 bfloat16, storage order NHWC);
  // x = m.reshape(1, 2, 1, 70).permute(0, 3, 1, 2)   (channels-last (1, 70, 2, 1))
  const std::vector<uint16_t> m = formula_bits(140, 0x3F50, 40, 7);
  HostTensor x = bits_tensor(ScalarType::BFloat16, {1, 70, 2, 1}, m, {0, 2, 3, 1});
  // x.prod(1): C is the stride-1 dim, a blocked run (x.contiguous().prod(1)
  // would give 14685, 14714)
  EXPECT_EQ(prod_dim(x, 1, false, {1, 2, 1}), (std::vector<uint16_t>{14690, 14720}));
  // x.prod(): one run of 140 in memory order
  EXPECT_EQ(prod_all(x, ScalarType::BFloat16), (std::vector<uint16_t>{13147}));
  // x.prod(2)[0, :3, 0]: pairs of stride 70, in order
  std::vector<uint16_t> h = prod_dim(x, 2, false, {1, 70, 1});
  ASSERT_EQ(h.size(), 70u);
  EXPECT_EQ((std::vector<uint16_t>{h[0], h[1], h[2], h[69]}),
            (std::vector<uint16_t>{16177, 16189, 16201, 16182}));
}

TEST(OpProdRoundingTest, ExplicitDtypes) {
  // torch.prod(torch.tensor([3, 7, 11, 13, 17, 19], dtype=torch.int32),
  //            dtype=torch.bfloat16): 974848 (18798)
  HostTensor xi = make_tensor<int32_t>({6}, {3, 7, 11, 13, 17, 19});
  HostTensor ob = zeros_tensor(ScalarType::BFloat16, {}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::prod.out",
                  {r.tensor(xi), r.i(static_cast<int64_t>(ScalarType::BFloat16)), r.tensor(ob)}),
            Error::Ok);
  EXPECT_EQ(ob.values<uint16_t>(), (std::vector<uint16_t>{18798}));
  // xe = torch.tensor([2.5, -3.75, 1.5, 0.5]).to(torch.bfloat16)
  HostTensor xe = bits_tensor(ScalarType::BFloat16, {2, 2}, {16416, 49264, 16320, 16128});
  // torch.prod(xe, dtype=torch.float32): -7.03125
  HostTensor of = zeros_tensor(ScalarType::Float, {}, ShapeDynamism::Static);
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::prod.out",
                   {r2.tensor(xe), r2.i(static_cast<int64_t>(ScalarType::Float)), r2.tensor(of)}),
            Error::Ok);
  EXPECT_EQ(of.values<float>(), (std::vector<float>{-7.03125f}));
  // torch.prod(xe, 1, dtype=torch.int64): each element truncated first: -6, 0
  HostTensor ol = zeros_tensor(ScalarType::Long, {2}, ShapeDynamism::Static);
  KernelRunner r3;
  ASSERT_EQ(
      r3.run("aten::prod.int_out", {r3.tensor(xe), r3.i(1), r3.b(false),
                                    r3.i(static_cast<int64_t>(ScalarType::Long)), r3.tensor(ol)}),
      Error::Ok);
  EXPECT_EQ(ol.values<int64_t>(), (std::vector<int64_t>{-6, 0}));
}

TEST(OpProdRoundingTest, MismatchedDtypeIsRefused) {
  // torch.prod(xe, dtype=torch.float16, out=<bfloat16>) raises: dtype must be out's.
  HostTensor xe = bits_tensor(ScalarType::BFloat16, {2}, {16416, 49264});
  HostTensor ob = zeros_tensor(ScalarType::BFloat16, {}, ShapeDynamism::Static);
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::prod.out",
                      {r.tensor(xe), r.i(static_cast<int64_t>(ScalarType::Half)), r.tensor(ob)}),
            Error::InvalidType);
}

// ---------------------------------------------------------------- var_mean

struct Moments {
  std::vector<float> var;
  std::vector<float> mean;
};

Moments var_mean_f32(std::vector<int32_t> sizes, const std::vector<float>& values,
                     std::vector<int64_t> dims, double correction, bool keepdim,
                     std::vector<int32_t> out_sizes) {
  HostTensor x = make_tensor<float>(std::move(sizes), values);
  HostTensor v = zeros_tensor(ScalarType::Float, out_sizes, ShapeDynamism::Static);
  HostTensor m = zeros_tensor(ScalarType::Float, out_sizes, ShapeDynamism::Static);
  KernelRunner r;
  EValue* d = dims.empty() ? r.none() : r.int_list(dims);
  EXPECT_EQ(r.run("aten::var_mean.correction_out",
                  {r.tensor(x), d, r.d(correction), r.b(keepdim), r.tensor(v), r.tensor(m)}),
            Error::Ok);
  return {v.values<float>(), m.values<float>()};
}

void expect_moments(const Moments& got, const Moments& want) {
  expect_close_special(got.var, want.var, 1e-6, 0.0);
  expect_close_special(got.mean, want.mean, 1e-6, 0.0);
}

TEST(OpVarMeanWelfordTest, InfinitiesGiveWelfordsMean) {
  // torch.var_mean(torch.tensor(v), correction=0); torch.mean would give inf,
  // inf, -inf for the first three.
  expect_moments(var_mean_f32({3}, {kInf, 1, 2}, {}, 0, false, {}), {{kNaN}, {kNaN}});
  expect_moments(var_mean_f32({3}, {1, 2, kInf}, {}, 0, false, {}), {{kNaN}, {kInf}});
  expect_moments(var_mean_f32({3}, {1, -kInf, 2}, {}, 0, false, {}), {{kNaN}, {kNaN}});
  expect_moments(var_mean_f32({1}, {kInf}, {}, 0, false, {}), {{kNaN}, {kInf}});
  expect_moments(var_mean_f32({2}, {kNaN, 1}, {}, 0, false, {}), {{kNaN}, {kNaN}});
  expect_moments(var_mean_f32({2}, {kInf, -kInf}, {}, 0, false, {}), {{kNaN}, {kNaN}});
  expect_moments(var_mean_f32({2}, {kInf, kInf}, {}, 0, false, {}), {{kNaN}, {kNaN}});
}

TEST(OpVarMeanWelfordTest, InfinitiesAlongDims) {
  // x = torch.tensor([[inf, 1, 2], [1, 2, inf], [3, 4, 5.5]])
  const std::vector<float> x = {kInf, 1, 2, 1, 2, kInf, 3, 4, 5.5f};
  // torch.var_mean(x, [1], correction=1)
  expect_moments(var_mean_f32({3, 3}, x, {1}, 1, false, {3}),
                 {{kNaN, kNaN, 1.5833333730697632f}, {kNaN, kInf, 4.166666507720947f}});
  // torch.var_mean(x, [0], correction=2.5, keepdim=True)
  expect_moments(var_mean_f32({3, 3}, x, {0}, 2.5, true, {1, 3}),
                 {{kNaN, 9.333333015441895f, kNaN}, {kNaN, 2.3333332538604736f, kNaN}});
}

TEST(OpVarMeanWelfordTest, DoubleIsWelfordBitForBit) {
  // xd = torch.tensor([[-8.689, -9.737, 6.749, -4.813, -5.313], [1, 2, 3, 4, 5]],
  //                   dtype=torch.float64); torch.var_mean(xd, [1], correction=1)
  // (two passes would give 43.043916800000005 and -4.3606)
  HostTensor xd =
      make_tensor<double>({2, 5}, {-8.689, -9.737, 6.749, -4.813, -5.313, 1, 2, 3, 4, 5});
  HostTensor v = zeros_tensor(ScalarType::Double, {2}, ShapeDynamism::Static);
  HostTensor m = zeros_tensor(ScalarType::Double, {2}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::var_mean.correction_out",
                  {r.tensor(xd), r.int_list({1}), r.i(1), r.b(false), r.tensor(v), r.tensor(m)}),
            Error::Ok);
  EXPECT_EQ(v.values<double>(), (std::vector<double>{43.0439168, 2.5}));
  EXPECT_EQ(m.values<double>(), (std::vector<double>{-4.360600000000001, 3.0}));
}

TEST(OpVarMeanWelfordTest, ChannelsLastInMemoryOrder) {
  // mem = [2.35, -7.47, -9.96, 7.43, -5.81, -5.69, 9.65, 7.45, -4.21, 9.23, 0.78, 3.56]
  // x = torch.tensor(mem, dtype=torch.float64).reshape(1, 2, 2, 3).permute(0, 3, 1, 2)
  // torch.var_mean(x, [1, 2, 3], correction=0): the mean ends ...664, where
  // the logical order would end ...666.
  HostTensor x = make_tensor<double>(
      {1, 3, 2, 2}, {2.35, -7.47, -9.96, 7.43, -5.81, -5.69, 9.65, 7.45, -4.21, 9.23, 0.78, 3.56},
      {0, 2, 3, 1});
  HostTensor v = zeros_tensor(ScalarType::Double, {1}, ShapeDynamism::Static);
  HostTensor m = zeros_tensor(ScalarType::Double, {1}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::var_mean.correction_out", {r.tensor(x), r.int_list({1, 2, 3}), r.i(0),
                                                    r.b(false), r.tensor(v), r.tensor(m)}),
            Error::Ok);
  EXPECT_EQ(v.values<double>(), (std::vector<double>{45.186090972222225}));
  EXPECT_EQ(m.values<double>(), (std::vector<double>{0.6091666666666664}));
}

TEST(OpVarMeanWelfordTest, HugeValuesDoNotOverflow) {
  // torch.var_mean(torch.tensor([3e38, 3e38, 3e38])): 0, 3e38
  expect_moments(var_mean_f32({3}, {3e38f, 3e38f, 3e38f}, {}, 1, false, {}), {{0.0f}, {3e38f}});
}

// ---------------------------------------------------------------- var

TEST(OpVarWelfordTest, OneOutputTakesTwoPassesSeveralTakeWelford) {
  // xd = torch.tensor([[1e308, 1e308, 1e308], [1, 2, 3]], dtype=torch.float64)
  // torch.var(xd, [1]): Welford, [0, 1]
  HostTensor xd = make_tensor<double>({2, 3}, {1e308, 1e308, 1e308, 1, 2, 3});
  HostTensor v = zeros_tensor(ScalarType::Double, {2}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::var.correction_out",
                  {r.tensor(xd), r.int_list({1}), r.none(), r.b(false), r.tensor(v)}),
            Error::Ok);
  EXPECT_EQ(v.values<double>(), (std::vector<double>{0.0, 1.0}));
  // torch.var(xd[0]): one output, the mean overflows: inf
  HostTensor row = make_tensor<double>({3}, {1e308, 1e308, 1e308});
  HostTensor one = zeros_tensor(ScalarType::Double, {}, ShapeDynamism::Static);
  KernelRunner r2;
  ASSERT_EQ(
      r2.run("aten::var.out", {r2.tensor(row), r2.none(), r2.b(true), r2.b(false), r2.tensor(one)}),
      Error::Ok);
  EXPECT_EQ(one.values<double>(), (std::vector<double>{INFINITY}));
  // torch.var(torch.tensor([3e38] * 3)): torch.mean's float sum overflows: inf
  HostTensor xf = make_tensor<float>({1, 3}, {3e38f, 3e38f, 3e38f});
  HostTensor f1 = zeros_tensor(ScalarType::Float, {1}, ShapeDynamism::Static);
  KernelRunner r3;
  ASSERT_EQ(r3.run("aten::var.correction_out",
                   {r3.tensor(xf), r3.int_list({1}), r3.none(), r3.b(false), r3.tensor(f1)}),
            Error::Ok);
  EXPECT_EQ(f1.values<float>(), (std::vector<float>{kInf}));
}

TEST(OpVarWelfordTest, InfinitiesGiveNaN) {
  // x = torch.tensor([[inf, 1, 2], [1, 2, inf], [3, 4, 5.5]])
  // torch.var(x, [1]), torch.var(x)
  HostTensor x = make_tensor<float>({3, 3}, {kInf, 1, 2, 1, 2, kInf, 3, 4, 5.5f});
  HostTensor v = zeros_tensor(ScalarType::Float, {3}, ShapeDynamism::Static);
  HostTensor all = zeros_tensor(ScalarType::Float, {}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::var.correction_out",
                  {r.tensor(x), r.int_list({1}), r.none(), r.b(false), r.tensor(v)}),
            Error::Ok);
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::var.correction_out",
                   {r2.tensor(x), r2.none(), r2.none(), r2.b(false), r2.tensor(all)}),
            Error::Ok);
  expect_close_special(v.values<float>(), {kNaN, kNaN, 1.5833333730697632f}, 1e-6, 0.0);
  expect_close_special(all.values<float>(), {kNaN}, 1e-6, 0.0);
}

}  // namespace
}  // namespace testing
}  // namespace etr
