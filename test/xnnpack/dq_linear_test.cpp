// The delegate's own qdint8 conversion and qd8 x qc8w linear layer
// (backends/xnnpack/dq_linear.h). Expected row parameters come from a
// Python (numpy float32) port of XNNPACK's
// xnn_qd8_asymmetric_quantization_params (src/xnnpack/quantization.h) with
// x86 math_min_f32/math_max_f32; the GEMM is checked against the same
// formula evaluated plainly (every tile remainder, 1 and 2 threads), and the
// whole path against the official runtime's output in
// xnnpack_backend_test.cpp (dq_mlp). The 4-bit weights: nibble order and
// zero point, the bf16 scale conversions, the block-wise layout refusals,
// and the block-wise GEMM against the official kernel's float order
// written out plainly (dq4_mlp compares with the official runtime).
#include "backends/xnnpack/dq_linear.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "extension/threadpool/pthread_pool.h"
#include "kernels/cpu_math/cpu_features.h"

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

TEST(DqLinearTest, LongRowsMatchTheFormulaElementByElement) {
  // Rows long enough for the vector path (8 and 32 floats per step, scalar
  // tails), with NaN, infinities, exact halves and values on the clamps;
  // expected codes from the formula written out plainly (quantization.h's
  // row parameters are checked by the test above).
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uf(-3.0f, 2.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t k : {8u, 31u, 32u, 33u, 100u, 768u, 2051u}) {
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(::testing::Message() << "k " << k << " variant " << variant);
      std::vector<float> x(k);
      for (float& v : x) v = uf(rng);
      if (variant == 1) x[k / 2] = nan;
      if (variant == 2) x[k - 1] = inf;
      if (variant == 3) {
        for (size_t i = 0; i < k; ++i)
          x[i] = static_cast<float>(static_cast<int>(i % 9) - 4) * 0.5f;
      }
      std::vector<int8_t> q(k);
      Qd8Params p{};
      xnnpack::qd8_quantize(x.data(), 1, k, q.data(), &p, nullptr);
      float lo = 0.0f, hi = 0.0f;
      for (float v : x) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
      float m = 0.0f;
      const Qd8Params want = xnnpack::qd8_params(lo, hi, &m);
      ASSERT_EQ(p.zero_point, want.zero_point);
      ASSERT_TRUE(p.scale == want.scale || (std::isnan(p.scale) && std::isnan(want.scale)));
      for (size_t i = 0; i < k; ++i) {
        float v = x[i] * m;
        if (std::isnan(v)) v = 0.0f;
        v = std::min(std::max(v, static_cast<float>(-128 - want.zero_point)),
                     static_cast<float>(127 - want.zero_point));
        const int code = static_cast<int>(std::nearbyint(v)) + want.zero_point;
        ASSERT_EQ(q[i], code) << "element " << i << " x " << x[i];
      }
    }
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
  const size_t shapes[][3] = {{1, 1, 1},   {1, 16, 2},    {3, 17, 3},   {4, 32, 8},
                              {5, 15, 33}, {7, 47, 5},    {9, 64, 64},  {2, 100, 65},
                              {0, 8, 4},   {13, 200, 31}, {41, 35, 47}, {70, 258, 17}};
  // Each shape three times: with the weights as given, packed for the
  // AVX-512 VNNI kernel where this CPU runs it (dq_vnni_usable), and packed
  // in int16 pairs for the AVX2 kernel where that one runs (dq_pairs_usable).
  for (size_t si = 0; si < 3 * (sizeof shapes / sizeof shapes[0]); ++si) {
    const auto& s = shapes[si / 3];
    const bool vnni = si % 3 == 1, pairs = si % 3 == 2;
    if (vnni && !xnnpack::dq_vnni_usable(s[1])) continue;
    if (pairs && !xnnpack::dq_pairs_usable(s[1])) continue;
    for (ThreadPool* tp :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(pool.get())}) {
      const size_t rows = s[0], k = s[1], n = s[2];
      SCOPED_TRACE(::testing::Message() << rows << "x" << k << "x" << n << (tp ? " pool" : "")
                                        << (vnni ? " vnni" : "") << (pairs ? " pairs" : ""));
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
      std::vector<int32_t> ksum(n, 0);
      for (size_t o = 0; o < n; ++o)
        for (size_t i = 0; i < k; ++i) ksum[o] += wq[o * k + i];
      w.ksum = ksum.data();
      w.scales = scales.data();
      w.bias = n % 2 ? nullptr : bias.data();
      w.output_min = -1.0f;
      w.output_max = 1.5f;
      std::vector<float> y(rows * n, -7.0f);
      const xnnpack::DqLinearWeights plain = w;
      std::vector<int8_t> packed;
      if (vnni) {
        packed.resize(xnnpack::dq_vnni_packed_bytes(n, k));
        xnnpack::dq_vnni_pack(wq.data(), n, k, packed.data());
        w.wvnni = packed.data();
        w.w = nullptr;  // the kernel must read the packed copy only
      }
      std::vector<int16_t> packed_pairs;
      if (pairs) {
        packed_pairs.resize(xnnpack::dq_pairs_packed_bytes(n, k) / sizeof(int16_t));
        xnnpack::dq_pairs_pack(wq.data(), n, k, packed_pairs.data());
        w.wpairs = packed_pairs.data();
        w.w = nullptr;
      }
      xnnpack::dq_linear(q.data(), p.data(), rows, w, y.data(), tp);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t o = 0; o < n; ++o) {
          ASSERT_EQ(y[r * n + o], reference(q, p[r], r, plain, o)) << "row " << r << " out " << o;
        }
      }
    }
  }
}

// The VNNI packing and the row sums at init: every byte of the packed
// layout against its definition (blocks of 16 outputs, groups of 4 inputs,
// zeros past n and k), for each remainder of n mod 16 and k mod 4, on the
// calling thread and split on a 2-thread pool (the largest shape is past
// the size that packing splits at).
TEST(DqLinearTest, VnniPackLayoutAndRowSums) {
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> i8(-128, 127);
  const size_t shapes[][2] = {{1, 1}, {15, 3}, {16, 4}, {17, 5}, {33, 6}, {47, 7}, {2080, 2049}};
  for (const auto& s : shapes) {
    const size_t n = s[0], k = s[1], k4 = (k + 3) / 4, nb = (n + 15) / 16;
    std::vector<int8_t> w(n * k);
    for (int8_t& v : w) v = static_cast<int8_t>(i8(rng));
    ASSERT_EQ(xnnpack::dq_vnni_packed_bytes(n, k), nb * 16 * k4 * 4);
    for (ThreadPool* tp :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(pool.get())}) {
      SCOPED_TRACE(::testing::Message() << n << "x" << k << (tp ? " pool" : ""));
      std::vector<int8_t> packed(xnnpack::dq_vnni_packed_bytes(n, k), 77);
      xnnpack::dq_vnni_pack(w.data(), n, k, packed.data(), tp);
      for (size_t ob = 0; ob < nb; ++ob) {
        for (size_t g = 0; g < k4; ++g) {
          for (size_t j = 0; j < 16; ++j) {
            for (size_t t = 0; t < 4; ++t) {
              const size_t o = ob * 16 + j, i = g * 4 + t;
              const int8_t want = o < n && i < k ? w[o * k + i] : 0;
              ASSERT_EQ(packed[((ob * k4 + g) * 16 + j) * 4 + t], want)
                  << "output " << o << " input " << i;
            }
          }
        }
      }
      std::vector<int32_t> sums(n, -1);
      xnnpack::dq_row_sums(w.data(), n, k, sums.data(), tp);
      for (size_t o = 0; o < n; ++o) {
        int64_t want = 0;
        for (size_t i = 0; i < k; ++i) want += w[o * k + i];
        ASSERT_EQ(sums[o], want) << "row " << o;
      }
    }
  }
}

// Static int8 layers (qs8_linear, VNNI only): XNNPACK's qc8 requantization
// written out in scalar code, for shapes with every remainder of the 8-row
// x 1..2-block and 6-row x 3..4-block tiles (16 outputs a block), of the
// 48-row tasks and of the 4-input groups, the packed 32- and 64-output
// stores and the per-block ones, saturating outputs included.
TEST(DqLinearTest, StaticInt8LinearMatchesXnnpackRequantization) {
  std::mt19937 rng(11);
  const size_t shapes[][3] = {{1, 1, 1},     {3, 17, 3},     {9, 64, 33},  {41, 35, 47},
                              {70, 258, 17}, {13, 40, 64},   {50, 16, 96}, {7, 9, 48},
                              {49, 27, 160}, {101, 33, 130}, {23, 8, 32},  {61, 12, 112}};
  for (const auto& s : shapes) {
    const size_t rows = s[0], k = s[1], n = s[2];
    // Without AVX-512 VNNI the delegate must not take this path (XNNPACK
    // runs the layer): checked, then there is nothing of this kernel to run.
    ASSERT_EQ(xnnpack::dq_vnni_usable(k), opt::cpu_features().avx512_vnni);
    if (!opt::cpu_features().avx512_vnni) continue;
    SCOPED_TRACE(::testing::Message() << rows << "x" << k << "x" << n);
    std::uniform_int_distribution<int> i8(-128, 127);
    std::uniform_int_distribution<int> ib(-20000, 20000);
    std::uniform_real_distribution<float> uf(0.0f, 1.0f);
    std::vector<int8_t> wq(n * k), x(rows * k);
    for (int8_t& v : wq) v = static_cast<int8_t>(i8(rng));
    for (int8_t& v : x) v = static_cast<int8_t>(i8(rng));
    std::vector<int32_t> ksum(n, 0), bias(n);
    std::vector<float> rq(n);
    for (size_t o = 0; o < n; ++o) {
      for (size_t i = 0; i < k; ++i) ksum[o] += wq[o * k + i];
      bias[o] = ib(rng);
      rq[o] = 0.002f * uf(rng) + 1e-5f;  // some outputs saturate, most do not
    }
    xnnpack::DqLinearWeights w;
    w.k = k;
    w.n = n;
    w.ksum = ksum.data();
    w.qbias = n % 2 ? nullptr : bias.data();
    w.requant = rq.data();
    w.input_zero_point = -7;
    w.output_zero_point = 5;
    if (rows % 2 == 1) {  // a fused ReLU and an upper bound inside int8
      w.output_qmin = 5;
      w.output_qmax = 100;
    }
    std::vector<int8_t> packed(xnnpack::dq_vnni_packed_bytes(n, k));
    xnnpack::dq_vnni_pack(wq.data(), n, k, packed.data());
    w.wvnni = packed.data();
    std::vector<int8_t> y(rows * n, 99);
    xnnpack::qs8_linear(x.data(), rows, w, y.data(), nullptr);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t o = 0; o < n; ++o) {
        int64_t acc = w.qbias != nullptr ? bias[o] : 0;
        for (size_t i = 0; i < k; ++i)
          acc += (static_cast<int64_t>(x[r * k + i]) + 7) * wq[o * k + i];
        const float f = static_cast<float>(acc) * rq[o];
        const long q = std::lrint(f) + 5;  // round half to even
        const int8_t want = static_cast<int8_t>(
            q < w.output_qmin ? w.output_qmin : (q > w.output_qmax ? w.output_qmax : q));
        ASSERT_EQ(y[r * n + o], want) << "row " << r << " out " << o;
      }
    }
  }
}

// ---- 4-bit weights

TEST(DqLinearTest, Int4NibblesUnpackLowFirstWithZeroPoint8) {
  // The exporter's layout (checked against torchao's qdata for dq4_mlp):
  // byte j = (q[2j+1] + 8) << 4 | (q[2j] + 8).
  const uint8_t src[] = {0x80, 0x0F, 0xF0, 0x79, 0x3C};
  std::vector<int8_t> dst(10, 99);
  ASSERT_TRUE(xnnpack::unpack_int4(src, sizeof src, 2, 5, dst.data()));
  EXPECT_EQ(dst, (std::vector<int8_t>{-8, 0, 7, -8, -8, 7, 1, -1, 4, -5}));
  // Odd count: the last byte's high nibble is unused.
  std::vector<int8_t> odd(3, 99);
  ASSERT_TRUE(xnnpack::unpack_int4(src, 2, 1, 3, odd.data()));
  EXPECT_EQ(odd, (std::vector<int8_t>{-8, 0, 7}));
}

TEST(DqLinearTest, Int4UnpackRefusesShortBuffersAndOverflow) {
  const uint8_t src[4] = {};
  std::vector<int8_t> dst(16, 99);
  EXPECT_FALSE(xnnpack::unpack_int4(src, 4, 3, 3, dst.data()));  // needs 5 bytes
  EXPECT_FALSE(xnnpack::unpack_int4(src, 3, 2, 4, dst.data()));  // needs 4
  EXPECT_EQ(dst[0], 99);                                         // nothing written
  EXPECT_FALSE(xnnpack::unpack_int4(src, 4, SIZE_MAX / 2, 4, dst.data()));
  EXPECT_FALSE(xnnpack::unpack_int4(nullptr, 4, 2, 4, dst.data()));
  EXPECT_TRUE(xnnpack::unpack_int4(src, 4, 2, 4, dst.data()));
  EXPECT_TRUE(xnnpack::unpack_int4(nullptr, 0, 0, 4, nullptr));
}

TEST(DqLinearTest, Bf16ScalesConvertAsTheOfficialRuntime) {
  // bf16 -> float: the high half. float -> bf16 (fp32 scales in a payload):
  // x * 1.00389105f, then truncation (values computed in numpy float32).
  EXPECT_EQ(xnnpack::bf16_to_float(0x3C88), 0.0166015625f);
  EXPECT_EQ(xnnpack::bf16_to_float(0xBF80), -1.0f);
  EXPECT_EQ(xnnpack::float_to_bf16_as_official(1.0f), 0x3F80);
  EXPECT_EQ(xnnpack::float_to_bf16_as_official(1.00390625f), 0x3F81);  // 1 + 2^-8: up
  EXPECT_EQ(xnnpack::float_to_bf16_as_official(1.004f), 0x3F81);
  EXPECT_EQ(xnnpack::float_to_bf16_as_official(1.9990234375f), 0x4000);
  EXPECT_EQ(xnnpack::float_to_bf16_as_official(0.003f), 0x3B45);
  EXPECT_EQ(xnnpack::float_to_bf16_as_official(0.0166f), 0x3C88);
}

TEST(DqLinearTest, BlockwiseLayoutProblemsAreNamed) {
  using xnnpack::qb4w_layout_problem;
  EXPECT_EQ(qb4w_layout_problem(10, 64, 32, 320, 20), nullptr);
  EXPECT_EQ(qb4w_layout_problem(10, 64, 64, 320, 10), nullptr);
  EXPECT_STREQ(qb4w_layout_problem(10, 64, 16, 320, 40),
               "group_size is not a positive multiple of 32");
  EXPECT_STREQ(qb4w_layout_problem(10, 64, 0, 320, 0),
               "group_size is not a positive multiple of 32");
  EXPECT_STREQ(qb4w_layout_problem(10, 96, 64, 480, 15),
               "group_size does not divide the input channels");
  EXPECT_STREQ(qb4w_layout_problem(10, 64, 32, 319, 20),
               "weight data is shorter than outputs * inputs / 2 bytes");
  EXPECT_STREQ(qb4w_layout_problem(10, 64, 32, 320, 19),
               "scale count is not outputs * inputs / group_size");
  EXPECT_STREQ(qb4w_layout_problem(SIZE_MAX / 32 + 1, 64, 32, SIZE_MAX, 0),
               "outputs * inputs overflows");
}

// The official kernel's order, written out plainly (dq_linear.h): packed
// float row sum over 16-input chunks, four lanes by input index mod 8, fma
// per block, ((l0 + l1) + (l2 + l3)), fma with the row scale and the bias.
float qb4w_reference(const std::vector<int8_t>& q, const Qd8Params& p, size_t r,
                     const xnnpack::DqLinearWeights& w, size_t o) {
  const size_t k = w.k, nb = k / w.block;
  float ks = 0.0f;
  for (size_t c = 0; c < k; c += 16) {
    int32_t s = 0;
    for (size_t i = c; i < c + 16; ++i) s += w.w[o * k + i];
    const volatile float t = static_cast<float>(s) * w.block_scales[o * nb + c / w.block];
    ks = ks - t;
  }
  float lane[4] = {ks * static_cast<float>(p.zero_point), 0.0f, 0.0f, 0.0f};
  for (size_t b = 0; b < nb; ++b) {
    for (int j = 0; j < 4; ++j) {
      int32_t d = 0;
      for (size_t i = b * w.block; i < (b + 1) * w.block; ++i) {
        if (static_cast<int>(i % 8) / 2 == j) d += q[r * k + i] * w.w[o * k + i];
      }
      lane[j] = std::fma(static_cast<float>(d), w.block_scales[o * nb + b], lane[j]);
    }
  }
  const volatile float l01 = lane[0] + lane[1];
  const volatile float l23 = lane[2] + lane[3];
  float y = std::fma(l01 + l23, p.scale, w.bias ? w.bias[o] : 0.0f);
  y = w.output_min < y ? y : w.output_min;
  return w.output_max < y ? w.output_max : y;
}

TEST(DqLinearTest, BlockwiseGemmMatchesTheKernelOrderForEveryRemainder) {
  std::mt19937 rng(11);
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  // rows, inputs, outputs, block
  const size_t shapes[][4] = {
      {1, 32, 1, 32},     {3, 64, 3, 32},    {4, 96, 8, 32},    {5, 128, 33, 64}, {7, 64, 5, 64},
      {9, 256, 64, 128},  {0, 32, 4, 32},    {13, 160, 31, 32}, {2, 2048, 7, 32}, {1, 768, 65, 128},
      {6, 1024, 3, 256},  {3, 1024, 5, 512}, {1, 192, 4, 192},  {5, 768, 9, 128}, {1, 2048, 6, 128},
      {2, 384, 130, 128}, {17, 256, 7, 128}};
  size_t vnni_cases = 0;
  for (const auto& s : shapes) {
    for (ThreadPool* tp :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(pool.get())}) {
      const size_t rows = s[0], k = s[1], n = s[2], bl = s[3];
      SCOPED_TRACE(::testing::Message()
                   << rows << "x" << k << "x" << n << " block " << bl << (tp ? " pool" : ""));
      std::uniform_int_distribution<int> i8(-128, 127), i4(0, 15);
      std::uniform_real_distribution<float> uf(-2.0f, 2.0f);
      std::vector<uint8_t> packed(n * k / 2);
      for (uint8_t& v : packed) v = static_cast<uint8_t>(i4(rng) | i4(rng) << 4);
      if (!packed.empty()) packed[0] = 0x0F;  // extremes -8 and 7
      std::vector<int8_t> wq(n * k), q(rows * k);
      ASSERT_TRUE(xnnpack::unpack_int4(packed.data(), packed.size(), n, k, wq.data()));
      for (int8_t& v : q) v = static_cast<int8_t>(i8(rng));
      if (!q.empty()) q[0] = -128;
      xnnpack::DqLinearWeights w;
      w.k = k;
      w.n = n;
      w.w = wq.data();
      w.block = bl;
      std::vector<float> block_scales(n * (k / bl));
      for (float& v : block_scales)
        v = xnnpack::bf16_to_float(
            xnnpack::float_to_bf16_as_official(std::fabs(uf(rng)) * 0.01f + 1e-4f));
      w.block_scales = block_scales.data();
      std::vector<float> bias(n);
      for (float& v : bias) v = uf(rng);
      w.bias = n % 2 ? nullptr : bias.data();
      w.output_min = -1.0f;
      w.output_max = 1.5f;
      std::vector<float> kfsum(n);
      xnnpack::qb4w_prepare_sums(w, kfsum.data());
      w.kfsum = kfsum.data();
      std::vector<Qd8Params> p(rows);
      for (Qd8Params& v : p) v = Qd8Params{std::fabs(uf(rng)) * 0.05f + 1e-3f, i8(rng)};
      std::vector<float> y(rows * n, -7.0f);
      xnnpack::dq_linear(q.data(), p.data(), rows, w, y.data(), tp);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t o = 0; o < n; ++o) {
          ASSERT_EQ(y[r * n + o], qb4w_reference(q, p[r], r, w, o)) << "row " << r << " out " << o;
        }
      }
      // The same weights repacked for the AVX-512 VNNI kernel (block a
      // multiple of 128, where this CPU has it): the same values, bit for bit.
      if (xnnpack::qb4w_vnni_supported(k, bl)) {
        ++vnni_cases;
        const size_t groups = xnnpack::qb4w_vnni_groups(n);
        std::vector<uint8_t> wv(groups * xnnpack::qb4w_vnni_group_bytes(k, bl) + 64);
        uint8_t* wv64 = wv.data() + (64 - reinterpret_cast<uintptr_t>(wv.data()) % 64) % 64;
        xnnpack::qb4w_vnni_pack(packed.data(), block_scales.data(), n, k, bl, wv64);
        xnnpack::DqLinearWeights wvn = w;
        wvn.w = nullptr;
        wvn.w4 = wv64;
        wvn.w4_vnni = true;
        wvn.block_scales = nullptr;
        std::vector<float> yv(rows * n, -7.0f);
        xnnpack::dq_linear(q.data(), p.data(), rows, wvn, yv.data(), tp);
        for (size_t r = 0; r < rows; ++r) {
          for (size_t o = 0; o < n; ++o) {
            ASSERT_EQ(yv[r * n + o], qb4w_reference(q, p[r], r, w, o))
                << "vnni: row " << r << " out " << o;
          }
        }
      }
      // The same weights repacked for the AVX2 nibble kernel (block a
      // multiple of 64): the same values, bit for bit.
      if (!xnnpack::qb4w_packed_supported(k, bl)) continue;
      std::vector<uint8_t> w4(n * k / 2 + 1);
      for (size_t o = 0; o < n; ++o)
        xnnpack::qb4w_pack_row(packed.data(), o, k, w4.data() + o * k / 2);
      xnnpack::DqLinearWeights wp = w;
      wp.w = nullptr;
      wp.w4 = w4.data();
      std::vector<float> yp(rows * n, -7.0f);
      xnnpack::dq_linear(q.data(), p.data(), rows, wp, yp.data(), tp);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t o = 0; o < n; ++o) {
          ASSERT_EQ(yp[r * n + o], qb4w_reference(q, p[r], r, w, o))
              << "packed: row " << r << " out " << o;
        }
      }
    }
  }
  if (vnni_cases == 0) std::printf("(no AVX-512 VNNI on this CPU: its kernel was not run)\n");
}

TEST(DqLinearTest, PackedNibblesKeepEveryWeight) {
  // qb4w_pack_row: per 64 inputs, byte b holds input b (low nibble) and 32 + b (high).
  const size_t n = 3, k = 128;
  std::vector<uint8_t> src(n * k / 2);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<int8_t> unpacked(n * k);
  ASSERT_TRUE(xnnpack::unpack_int4(src.data(), src.size(), n, k, unpacked.data()));
  for (size_t o = 0; o < n; ++o) {
    std::vector<uint8_t> row(k / 2);
    xnnpack::qb4w_pack_row(src.data(), o, k, row.data());
    for (size_t i = 0; i < k; ++i) {
      const size_t c = i / 64 * 64, j = i % 64;
      const uint8_t byte = row[c / 2 + j % 32];
      const int nib = j < 32 ? byte & 0x0F : byte >> 4;
      ASSERT_EQ(nib - 8, unpacked[o * k + i]) << "row " << o << " input " << i;
    }
  }
}

TEST(DqLinearTest, VnniPackingKeepsEveryWeightWhereDocumented) {
  // qb4w_vnni_pack (dq_linear.h): groups of 4 outputs, each its bf16 block
  // scales [blocks, 4] (padded to 64 bytes), then per 128 inputs 4 vectors
  // of 64 bytes; byte 16o + 4j + e of vector s holds reordered inputs
  // 16s + 4j + e (low nibble) and 64 + 16s + 4j + e (high), where reordered
  // position 4j + e of each 16 is input 2j + (e & 1) + 8 (e >> 1).
  const size_t n = 6, k = 256, block = 128, nb = 2;  // the second group is half padding
  std::vector<uint8_t> src(n * k / 2);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<int8_t> unpacked(n * k);
  ASSERT_TRUE(xnnpack::unpack_int4(src.data(), src.size(), n, k, unpacked.data()));
  std::vector<float> scales(n * nb);
  for (size_t i = 0; i < scales.size(); ++i) scales[i] = 0.5f + static_cast<float>(i);
  const size_t groups = xnnpack::qb4w_vnni_groups(n);
  ASSERT_EQ(groups, 2u);
  ASSERT_EQ(xnnpack::qb4w_vnni_scale_bytes(k, block), 64u);
  const size_t group_bytes = xnnpack::qb4w_vnni_group_bytes(k, block);
  ASSERT_EQ(group_bytes, 64u + 2 * k);
  std::vector<uint8_t> dst(groups * group_bytes, 0xAA);
  xnnpack::qb4w_vnni_pack(src.data(), scales.data(), n, k, block, dst.data());
  for (size_t o = 0; o < groups * 4; ++o) {
    const uint8_t* group = dst.data() + (o / 4) * group_bytes;
    for (size_t b = 0; b < nb; ++b) {
      uint16_t h;
      std::memcpy(&h, group + (b * 4 + o % 4) * 2, 2);
      EXPECT_EQ(xnnpack::bf16_to_float(h), o < n ? scales[o * nb + b] : 0.0f)
          << "output " << o << " block " << b;
    }
    for (size_t i = 0; i < k; ++i) {
      // Where input i of output o went.
      const size_t c = i / 128, r = i % 128, half = r / 64, in16 = r % 16, seg = r % 64 / 16;
      const size_t j = in16 % 8 / 2, e = in16 % 2 + 2 * (in16 / 8);
      const uint8_t byte = group[64 + c * 256 + seg * 64 + (o % 4) * 16 + 4 * j + e];
      const int nib = half == 0 ? byte & 0x0F : byte >> 4;
      const int want = o < n ? unpacked[o * k + i] : 0;  // padding: zero weights
      ASSERT_EQ(nib - 8, want) << "output " << o << " input " << i;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
