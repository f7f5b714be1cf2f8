// The delegate's own qdint8 conversion and qd8 x qc8w linear layer
// (backends/xnnpack/dq_linear.h). Expected row parameters come from a
// Python (numpy float32) port of XNNPACK's
// xnn_qd8_asymmetric_quantization_params (src/xnnpack/quantization.h) with
// x86 math_min_f32/math_max_f32; the GEMM is checked against the same
// formula evaluated plainly (every tile remainder, 1 and 2 threads), and the
// whole path against the official runtime's output in
// xnnpack_backend_test.cpp (dq_mlp).
#include "backends/xnnpack/dq_linear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "extension/threadpool/pthread_pool.h"

namespace etr {
namespace testing {
namespace {

using xnnpack::Qd8Params;

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

struct RowCase {
  const char* name;
  std::vector<float> x;
  uint32_t scale_bits;  // float32 bits of the dequantization scale
  int32_t zero_point;
  std::vector<int8_t> q;
};

// Values computed with
//   m = f32(255) / f32(rmax - rmin) (1 when rmin == rmax), zp per
//   quantization.h, scale = f32(1) / m, q = rint(clamp(x*m, -128-zp, 127-zp)) + zp
// in numpy float32 (NaN elements are skipped by min/max and map to zp).
std::vector<RowCase> row_cases() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  return {
      {"equal_positive", {0.5f, 0.5f, 0.5f}, 0x3b008081u, -128, {127, 127, 127}},
      {"all_zero", {0.0f, 0.0f, 0.0f}, 0x3f800000u, 127, {127, 127, 127}},
      {"equal_negative", {-2.0f, -2.0f}, 0x3c008081u, 127, {-128, -128}},
      {"mixed",
       {-1.5f, 0.25f, 3.0f, -0.75f, 2.9999f},
       0x3c909090u,
       -43,
       {-128, -29, 127, -85, 127}},
      // +inf: m = 0, scale = inf; every element lands on the zero point.
      {"plus_inf", {1.0f, inf, -1.0f}, 0x7f800000u, -128, {-128, -128, -128}},
      {"minus_inf", {1.0f, -inf, -1.0f}, 0x7f800000u, 127, {127, 127, 127}},
      {"tiny_range", {1e-30f, -3e-31f}, 0x09d3c3a7u, -69, {127, -128}},
      // 255 / 1e-40 overflows: m = inf, scale = 0.
      {"denormal", {1e-40f, 0.0f}, 0x00000000u, -128, {127, -128}},
      {"nan", {nan, 1.0f, -1.0f}, 0x3c008081u, 0, {0, 127, -128}},
  };
}

TEST(DqLinearTest, RowParametersAndValuesMatchXnnpackFormula) {
  for (const RowCase& c : row_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<int8_t> q(c.x.size());
    Qd8Params p{};
    xnnpack::qd8_quantize(c.x.data(), 1, c.x.size(), q.data(), &p, nullptr);
    const float want = from_bits(c.scale_bits);
    if (std::isinf(want)) {
      EXPECT_TRUE(std::isinf(p.scale));
    } else {
      EXPECT_EQ(p.scale, want);
    }
    EXPECT_EQ(p.zero_point, c.zero_point);
    EXPECT_EQ(q, c.q);
  }
}

TEST(DqLinearTest, RowsAreIndependentOnAPool) {
  // The same rows stacked 64 times, quantized on two threads, must give
  // each row its own parameters.
  const std::vector<float> a = {-1.5f, 0.25f, 3.0f, -0.75f, 2.9999f};
  const std::vector<float> b = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  std::vector<float> x;
  for (int r = 0; r < 64; ++r) x.insert(x.end(), (r % 2 ? b : a).begin(), (r % 2 ? b : a).end());
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  std::vector<int8_t> q(x.size());
  std::vector<Qd8Params> p(64);
  xnnpack::qd8_quantize(x.data(), 64, 5, q.data(), p.data(), pool.get());
  for (int r = 0; r < 64; ++r) {
    EXPECT_EQ(p[r].zero_point, r % 2 ? -128 : -43) << r;
    EXPECT_EQ(q[r * 5 + 2], 127) << r;
  }
}

// y = fma(f32(sum (q - zp) w) * scale, w_scale, bias), clamped.
float reference(const std::vector<int8_t>& q, const Qd8Params& p, size_t r,
                const xnnpack::DqLinearWeights& w, size_t o) {
  int64_t acc = 0;
  for (size_t i = 0; i < w.k; ++i)
    acc += (static_cast<int64_t>(q[r * w.k + i]) - p.zero_point) * w.w[o * w.k + i];
  float y = std::fma(static_cast<float>(acc) * p.scale, w.scales[o], w.bias ? w.bias[o] : 0.0f);
  y = w.output_min < y ? y : w.output_min;
  return w.output_max < y ? w.output_max : y;
}

TEST(DqLinearTest, GemmMatchesTheFormulaForEveryRemainder) {
  std::mt19937 rng(7);
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  const size_t shapes[][3] = {{1, 1, 1},  {1, 16, 2},  {3, 17, 3},   {4, 32, 8}, {5, 15, 33},
                              {7, 47, 5}, {9, 64, 64}, {2, 100, 65}, {0, 8, 4},  {13, 200, 31}};
  for (const auto& s : shapes) {
    for (ThreadPool* tp :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(pool.get())}) {
      const size_t rows = s[0], k = s[1], n = s[2];
      SCOPED_TRACE(::testing::Message() << rows << "x" << k << "x" << n << (tp ? " pool" : ""));
      std::uniform_int_distribution<int> i8(-128, 127);
      std::uniform_real_distribution<float> uf(-2.0f, 2.0f);
      std::vector<int8_t> wq(n * k), q(rows * k);
      for (int8_t& v : wq) v = static_cast<int8_t>(i8(rng));
      for (int8_t& v : q) v = static_cast<int8_t>(i8(rng));
      if (!q.empty()) q[0] = -128;  // extremes
      if (!wq.empty()) wq[0] = -128;
      std::vector<float> scales(n), bias(n);
      for (float& v : scales) v = std::fabs(uf(rng)) * 0.01f + 1e-4f;
      for (float& v : bias) v = uf(rng);
      std::vector<Qd8Params> p(rows);
      for (Qd8Params& v : p) v = Qd8Params{std::fabs(uf(rng)) * 0.05f + 1e-3f, i8(rng)};
      xnnpack::DqLinearWeights w;
      w.k = k;
      w.n = n;
      w.w = wq.data();
      w.ksum.assign(n, 0);
      for (size_t o = 0; o < n; ++o)
        for (size_t i = 0; i < k; ++i) w.ksum[o] += wq[o * k + i];
      w.scales = scales.data();
      w.bias = n % 2 ? nullptr : bias.data();
      w.output_min = -1.0f;
      w.output_max = 1.5f;
      std::vector<float> y(rows * n, -7.0f);
      xnnpack::dq_linear(q.data(), p.data(), rows, w, y.data(), tp);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t o = 0; o < n; ++o) {
          ASSERT_EQ(y[r * n + o], reference(q, p[r], r, w, o)) << "row " << r << " out " << o;
        }
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
