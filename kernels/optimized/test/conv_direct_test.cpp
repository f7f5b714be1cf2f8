// The direct AVX2 convolution kernels with their fused epilogues (clamp,
// SiLU): depthwise 3x3 / 5x5 (util/conv_depthwise.h, depthwise_direct_avx2)
// against the banded depthwise kernel followed by the activation passes, and
// the first-layer 3x3 stride-2 kernel (util/conv_direct.h) against a plain
// loop in double, over seeded random sizes (tiny planes, planes that take the
// flat and the row-group paths, odd widths), 1 and 2 threads, with NaN and
// infinities in the input. Skipped where the CPU has no AVX2 + FMA.
#include "kernels/cpu_math/conv_direct.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "kernels/cpu_math/conv_depthwise.h"
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemv.h"
#include "kernels/cpu_math/vec_math.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// 64-byte aligned scratch of `bytes`.
struct Scratch {
  explicit Scratch(size_t bytes) : mem(bytes + 64) {}
  void* get() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(mem.data());
    return mem.data() + (64 - p % 64) % 64;
  }
  std::vector<uint8_t> mem;
};

// Equal within tolerance; NaN matches NaN, infinities match exactly.
void expect_close(const std::vector<float>& got, const std::vector<float>& want, double rtol,
                  double atol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double x = got[i], y = want[i];
    const bool ok = std::isnan(y)   ? std::isnan(x)
                    : std::isinf(y) ? x == y
                                    : std::abs(x - y) <= atol + rtol * std::abs(y);
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << ": element " << i << " is " << x << ", want " << y;
  }
  EXPECT_EQ(bad, 0u) << what;
}

struct Act {
  const char* name;
  opt::DepthwiseEpilogue e;
};

std::vector<Act> activations() {
  std::vector<Act> acts(4);
  acts[0].name = "none";
  acts[1].name = "relu6";
  acts[1].e.lo = 0.0f;
  acts[1].e.hi = 6.0f;
  acts[2].name = "silu";
  acts[2].e.silu = true;
  acts[3].name = "clamp+silu";
  acts[3].e.lo = -1.0f;
  acts[3].e.hi = 1.5f;
  acts[3].e.silu = true;
  return acts;
}

// The epilogue as separate passes (what run_conv does after the banded kernel).
void apply_epilogue(const opt::DepthwiseEpilogue& e, std::vector<float>* v) {
  if (e.lo > -INFINITY || e.hi < INFINITY) {
    opt::UnaryParams p;
    p.kind = opt::UnaryKind::kClamp;
    p.lo = e.lo;
    p.hi = e.hi;
    opt::unary(p, v->data(), v->data(), v->size());
  }
  if (e.silu) {
    opt::UnaryParams p;
    p.kind = opt::UnaryKind::kSilu;
    opt::unary(p, v->data(), v->data(), v->size());
  }
}

opt::DepthwiseGeom random_depthwise(std::mt19937& rng, uint32_t seed) {
  opt::DepthwiseGeom g;
  g.batch = pick(rng, 1, 2);
  g.channels = pick(rng, 1, 7);
  g.kh = g.kw = seed % 2 == 0 ? 3 : 5;
  g.sh = g.sw = seed % 3 == 0 ? 2 : 1;
  g.ph = g.pw = g.kh / 2;
  // Tiny planes, the flat path (up to 1024 elements) and the row-group path.
  const int sizes[][2] = {{1, 1},   {2, 3},   {7, 7},   {14, 14}, {5, 19}, {28, 28},
                          {33, 17}, {40, 41}, {56, 56}, {9, 70},  {3, 120}};
  const auto& s = sizes[seed % 11];
  g.h = s[0] + pick(rng, 0, 2);
  g.w = s[1] + pick(rng, 0, 2);
  g.oh = (g.h - 1) / g.sh + 1;
  g.ow = (g.w - 1) / g.sw + 1;
  return g;
}

TEST(OptConvDirectTest, DepthwiseMatchesBandedWithEpilogue) {
  ETR_REQUIRE_AVX2_KERNELS();
  for (uint32_t seed = 1; seed <= 66; ++seed) {
    std::mt19937 rng(seed);
    const opt::DepthwiseGeom g = random_depthwise(rng, seed);
    ASSERT_TRUE(opt::depthwise_direct_supported(g)) << seed;
    const size_t in_n = static_cast<size_t>(g.batch * g.channels * g.h * g.w);
    const size_t out_n = static_cast<size_t>(g.batch * g.channels * g.oh * g.ow);
    std::vector<float> x = random_values(in_n, rng);
    if (seed % 4 == 0) {
      x[static_cast<size_t>(pick(rng, 0, static_cast<int>(in_n) - 1))] = NAN;
      x[static_cast<size_t>(pick(rng, 0, static_cast<int>(in_n) - 1))] = INFINITY;
    }
    const std::vector<float> w = random_values(static_cast<size_t>(g.channels * g.kh * g.kw), rng);
    const std::vector<float> b = random_values(static_cast<size_t>(g.channels), rng);
    const opt::DepthwisePlan plan = opt::plan_depthwise(g, 1);
    Scratch band(plan.scratch_bytes);
    std::vector<float> plain(out_n);
    opt::depthwise_conv(g, plan, x.data(), w.data(), seed % 5 == 0 ? nullptr : b.data(),
                        plain.data(), band.get(), nullptr, false);
    for (const Act& act : activations()) {
      std::vector<float> want = plain;
      apply_epilogue(act.e, &want);
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
        const size_t threads = pool == nullptr ? 1 : pool->num_threads();
        const size_t bytes = opt::depthwise_direct_scratch_bytes(g, threads);
        Scratch s(bytes);
        std::vector<float> got(out_n, -7.0f);
        opt::depthwise_direct_avx2(g, x.data(), w.data(), seed % 5 == 0 ? nullptr : b.data(), act.e,
                                   got.data(), s.get(), bytes, pool);
        const std::string what = "seed " + std::to_string(seed) + " k" + std::to_string(g.kh) +
                                 " s" + std::to_string(g.sh) + " " + std::to_string(g.h) + "x" +
                                 std::to_string(g.w) + " " + act.name +
                                 (pool == nullptr ? " 1 thread" : " 2 threads");
        expect_close(got, want, 1e-5, 1e-5, what);
      }
    }
  }
}

// Less scratch than asked for: fewer threads, same result.
TEST(OptConvDirectTest, DepthwiseRunsOnOneSlotOfScratch) {
  ETR_REQUIRE_AVX2_KERNELS();
  std::mt19937 rng(90);
  opt::DepthwiseGeom g;
  g.batch = 1;
  g.channels = 9;
  g.h = g.w = 40;
  g.kh = g.kw = 3;
  g.ph = g.pw = 1;
  g.oh = g.ow = 40;
  const std::vector<float> x = random_values(static_cast<size_t>(9 * 40 * 40), rng);
  const std::vector<float> w = random_values(81, rng);
  const size_t one = opt::depthwise_direct_scratch_bytes(g, 1);
  ASSERT_LT(one, opt::depthwise_direct_scratch_bytes(g, 2));
  std::vector<float> a(x.size()), b2(x.size());
  Scratch s1(one), s2(one);
  opt::depthwise_direct_avx2(g, x.data(), w.data(), nullptr, {}, a.data(), s1.get(), one, nullptr);
  opt::depthwise_direct_avx2(g, x.data(), w.data(), nullptr, {}, b2.data(), s2.get(), one,
                             test_thread_pool());
  EXPECT_EQ(a, b2);
}

// Larger planes (several bands for stride 2, windows past L1 for stride 1),
// on 2 threads: the same values as one thread and the banded kernel.
TEST(OptConvDirectTest, DepthwiseLargePlanesMatchOneThread) {
  ETR_REQUIRE_AVX2_KERNELS();
  const int cases[][4] = {{58, 61, 3, 1}, {57, 50, 5, 2},   {30, 28, 5, 1},
                          {29, 31, 3, 2}, {113, 112, 3, 2}, {28, 29, 3, 1}};
  uint32_t seed = 95;
  for (const auto& c : cases) {
    std::mt19937 rng(seed++);
    opt::DepthwiseGeom g;
    g.batch = 1;
    g.channels = 6;
    g.h = c[0];
    g.w = c[1];
    g.kh = g.kw = c[2];
    g.sh = g.sw = c[3];
    g.ph = g.pw = c[2] / 2;
    g.oh = (g.h - 1) / g.sh + 1;
    g.ow = (g.w - 1) / g.sw + 1;
    const size_t in_n = static_cast<size_t>(g.channels * g.h * g.w);
    const size_t out_n = static_cast<size_t>(g.channels * g.oh * g.ow);
    const std::vector<float> x = random_values(in_n, rng);
    const std::vector<float> w = random_values(static_cast<size_t>(g.channels * g.kh * g.kw), rng);
    const std::vector<float> b = random_values(static_cast<size_t>(g.channels), rng);
    const opt::DepthwisePlan plan = opt::plan_depthwise(g, 1);
    Scratch band(plan.scratch_bytes);
    std::vector<float> want(out_n);
    opt::depthwise_conv(g, plan, x.data(), w.data(), b.data(), want.data(), band.get(), nullptr,
                        false);
    opt::DepthwiseEpilogue relu6;
    relu6.lo = 0.0f;
    relu6.hi = 6.0f;
    apply_epilogue(relu6, &want);
    std::vector<float> one(out_n, -7.0f), two(out_n, -7.0f);
    const size_t bytes = opt::depthwise_direct_scratch_bytes(g, 2);
    Scratch s1(bytes), s2(bytes);
    opt::depthwise_direct_avx2(g, x.data(), w.data(), b.data(), relu6, one.data(), s1.get(), bytes,
                               nullptr);
    opt::depthwise_direct_avx2(g, x.data(), w.data(), b.data(), relu6, two.data(), s2.get(), bytes,
                               test_thread_pool());
    const std::string what = std::to_string(c[0]) + "x" + std::to_string(c[1]) + " k" +
                             std::to_string(c[2]) + " s" + std::to_string(c[3]);
    EXPECT_EQ(one, two) << what;
    expect_close(two, want, 1e-5, 1e-5, what);
  }
}

// out[b, co, y, x] in double, then the epilogue.
std::vector<float> reference_3x3s2(const opt::DirectConvGeom& g, const std::vector<float>& x,
                                   const std::vector<float>& w, const float* bias,
                                   const opt::DepthwiseEpilogue& e) {
  std::vector<float> out(static_cast<size_t>(g.batch * g.c_out * g.oh * g.ow));
  size_t at = 0;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t co = 0; co < g.c_out; ++co) {
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t xo = 0; xo < g.ow; ++xo) {
          double s = bias == nullptr ? 0.0 : bias[co];
          for (int64_t ci = 0; ci < g.c_in; ++ci) {
            for (int64_t ki = 0; ki < 3; ++ki) {
              for (int64_t kj = 0; kj < 3; ++kj) {
                const int64_t r = 2 * y - 1 + ki, c = 2 * xo - 1 + kj;
                if (r < 0 || r >= g.h || c < 0 || c >= g.w) continue;
                s += static_cast<double>(
                         w[static_cast<size_t>(((co * g.c_in + ci) * 3 + ki) * 3 + kj)]) *
                     x[static_cast<size_t>(((b * g.c_in + ci) * g.h + r) * g.w + c)];
              }
            }
          }
          if (e.lo > -INFINITY || e.hi < INFINITY)
            s = std::min<double>(std::max<double>(s, e.lo), e.hi);
          if (e.silu) s = s / (1.0 + std::exp(-s));
          out[at++] = static_cast<float>(s);
        }
      }
    }
  }
  return out;
}

// The first-layer kernel `conv` (conv3x3s2_avx2 or conv3x3s2_avx512) on g
// with random input, weights and bias (none for every fourth seed) drawn from
// rng, against the float64 reference, for every activation on 1 and 2
// threads; returns the largest error.
double check_first_layer(const opt::DirectConvGeom& g, uint32_t seed, std::mt19937& rng,
                         decltype(&opt::conv3x3s2_avx2) conv) {
  const std::vector<float> x =
      random_values(static_cast<size_t>(g.batch * g.c_in * g.h * g.w), rng);
  const std::vector<float> w = random_values(static_cast<size_t>(g.c_out * g.c_in * 9), rng);
  const std::vector<float> b = random_values(static_cast<size_t>(g.c_out), rng);
  const float* bias = seed % 4 == 0 ? nullptr : b.data();
  double worst = 0.0;
  for (const Act& act : activations()) {
    const std::vector<float> want = reference_3x3s2(g, x, w, bias, act.e);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      const size_t threads = pool == nullptr ? 1 : pool->num_threads();
      const size_t bytes = opt::conv3x3s2_scratch_bytes(g, threads);
      Scratch s(bytes);
      std::vector<float> got(want.size(), -7.0f);
      conv(g, x.data(), w.data(), bias, act.e, got.data(), s.get(), bytes, pool);
      for (size_t i = 0; i < got.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
      }
      expect_close(got, want, 1e-5, 1e-5,
                   "seed " + std::to_string(seed) + " " + act.name +
                       (pool == nullptr ? " 1 thread" : " 2 threads"));
    }
  }
  return worst;
}

TEST(OptConvDirectTest, FirstLayer3x3Stride2MatchesReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  for (uint32_t seed = 100; seed < 124; ++seed) {
    std::mt19937 rng(seed);
    opt::DirectConvGeom g;
    g.batch = pick(rng, 1, 2);
    g.c_in = pick(rng, 1, static_cast<int>(opt::kDirectConvMaxCin));
    g.c_out = 8 * pick(rng, 1, 5);
    g.h = seed % 6 == 0 ? pick(rng, 1, 3) : pick(rng, 4, 40);
    g.w = seed % 5 == 0 ? pick(rng, 1, 3) : pick(rng, 4, 53);
    g.oh = (g.h - 1) / 2 + 1;
    g.ow = (g.w - 1) / 2 + 1;
    ASSERT_TRUE(opt::conv3x3s2_supported(g));
    check_first_layer(g, seed, rng, opt::conv3x3s2_avx2);
  }
}

// The AVX-512 body of the first-layer convolution against a float64
// reference: image widths that leave 1 to 3 blocks of 16 pixels after the
// groups of 4 and a partial last block (MobileNet's 224 x 224 among them),
// 1 and 2 threads.
TEST(OptConvDirectTest, FirstLayer3x3Stride2Avx512MatchesReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  if (!opt::cpu_features().avx512f) GTEST_SKIP() << "no AVX-512F on this CPU";
  double worst = 0.0;
  for (uint32_t seed = 400; seed < 424; ++seed) {
    std::mt19937 rng(seed);
    opt::DirectConvGeom g;
    g.batch = pick(rng, 1, 2);
    g.c_in = pick(rng, 1, static_cast<int>(opt::kDirectConvMaxCin));
    g.c_out = 8 * pick(rng, 1, 4);
    g.h = seed % 6 == 0 ? pick(rng, 1, 3) : pick(rng, 4, 30);
    g.w = seed % 5 == 0 ? pick(rng, 1, 3) : pick(rng, 4, 260);
    if (seed == 401) {
      g.c_in = 3;
      g.c_out = 16;
      g.h = g.w = 224;
    }
    g.oh = (g.h - 1) / 2 + 1;
    g.ow = (g.w - 1) / 2 + 1;
    ASSERT_TRUE(opt::conv3x3s2_supported(g));
    worst = std::max(worst, check_first_layer(g, seed, rng, opt::conv3x3s2_avx512));
  }
  std::printf("first layer (AVX-512): max |error| %.3g against float64\n", worst);
}

// The float64 reference of y = act(w x + bias) for row-major w [m, k].
std::vector<float> gemv_reference(const std::vector<float>& w, int64_t m, int64_t k,
                                  const std::vector<float>& x, const float* bias,
                                  const opt::DepthwiseEpilogue& e) {
  std::vector<float> want(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    double s = bias == nullptr ? 0.0 : bias[i];
    for (int64_t j = 0; j < k; ++j)
      s += static_cast<double>(w[static_cast<size_t>(i * k + j)]) * x[static_cast<size_t>(j)];
    if (e.lo > -INFINITY || e.hi < INFINITY) {
      s = std::min<double>(std::max<double>(s, e.lo), e.hi);
    }
    if (e.silu) s = s / (1.0 + std::exp(-s));
    want[static_cast<size_t>(i)] = static_cast<float>(s);
  }
  return want;
}

TEST(OptConvDirectTest, GemvMatchesReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  for (uint32_t seed = 200; seed < 230; ++seed) {
    std::mt19937 rng(seed);
    const int64_t m = pick(rng, 1, 70), k = pick(rng, 1, 1200);
    const std::vector<float> w = random_values(static_cast<size_t>(m * k), rng);
    const std::vector<float> x = random_values(static_cast<size_t>(k), rng);
    const std::vector<float> b = random_values(static_cast<size_t>(m), rng);
    const float* bias = seed % 3 == 0 ? nullptr : b.data();
    for (const Act& act : activations()) {
      const std::vector<float> want = gemv_reference(w, m, k, x, bias, act.e);
      std::vector<float> got(static_cast<size_t>(m), -7.0f);
      opt::gemv_rows_avx2(w.data(), m, k, x.data(), bias, act.e, got.data());
      expect_close(got, want, 1e-5, 2e-6 * std::sqrt(static_cast<double>(k)),
                   "seed " + std::to_string(seed) + " " + act.name);
    }
  }
}

// The panel-packed product against a float64 reference: panel edges (m not
// a multiple of 16), k not a multiple of 4, and products large enough to
// split over 2 threads (from 2^17 multiply-adds: MobileNetV3's 960 x 240
// squeeze-excite layer and the larger classifier-sized ones).
TEST(OptConvDirectTest, GemvPanelsMatchesReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  double worst = 0.0;
  for (uint32_t seed = 300; seed < 336; ++seed) {
    std::mt19937 rng(seed);
    int64_t m = pick(rng, 1, 70), k = pick(rng, 1, 1200);
    if (seed % 6 == 0) {
      m = 960;
      k = 240;
    } else if (seed % 6 == 1) {
      // Classifier-sized (over 2^20 multiply-adds).
      m = pick(rng, 1100, 1300);
      k = pick(rng, 960, 1100);
    }
    const std::vector<float> w = random_values(static_cast<size_t>(m * k), rng);
    const std::vector<float> x = random_values(static_cast<size_t>(k), rng);
    const std::vector<float> b = random_values(static_cast<size_t>(m), rng);
    const float* bias = seed % 3 == 0 ? nullptr : b.data();
    const size_t floats = opt::gemv_panels_floats(m, k);
    ASSERT_EQ(floats, static_cast<size_t>((m + 15) / 16 * 16 * k));
    Scratch packed(floats * sizeof(float));
    auto* pw = static_cast<float*>(packed.get());
    opt::gemv_pack_panels(w.data(), m, k, pw);
    for (const Act& act : activations()) {
      const std::vector<float> want = gemv_reference(w, m, k, x, bias, act.e);
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
        std::vector<float> got(static_cast<size_t>(m), -7.0f);
        opt::gemv_panels_avx2(pw, m, k, x.data(), bias, act.e, got.data(), pool);
        for (size_t i = 0; i < got.size(); ++i) {
          worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
        }
        expect_close(got, want, 1e-5, 2e-6 * std::sqrt(static_cast<double>(k)),
                     "seed " + std::to_string(seed) + " " + act.name +
                         (pool == nullptr ? " 1 thread" : " 2 threads"));
      }
    }
  }
  std::printf("gemv panels: max |error| %.3g against float64\n", worst);
}

}  // namespace
}  // namespace testing
}  // namespace etr
