// The direct grouped convolution (util/conv_grouped.h) against a plain loop
// in double: seeded random geometries (groups of 1-20 input channels and
// 8-24 output channels, 1x1 / 3x3 / 5x5 / uneven filters, strides 1-3,
// dilation, padding, 1-D, several images), the fused epilogues, 1 and 2
// threads, short scratch; and through aten::convolution.out (RegNet-shaped
// layers) against the same loop. Skipped where the CPU has no AVX2 + FMA.
#include "kernels/cpu_math/conv_grouped.h"

#include <cmath>
#include <string>

#include "kernels/cpu_math/cpu_features.h"
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

struct Scratch {
  explicit Scratch(size_t bytes) : mem(bytes + 64) {}
  void* get() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(mem.data());
    return mem.data() + (64 - p % 64) % 64;
  }
  std::vector<uint8_t> mem;
};

// out[b, co, y, x] in double, then the epilogue.
std::vector<double> reference(const opt::GroupedConvGeom& g, const std::vector<float>& x,
                              const std::vector<float>& w, const float* bias,
                              const opt::DepthwiseEpilogue& e) {
  const int64_t icg = g.c_in / g.groups, ocg = g.c_out / g.groups;
  std::vector<double> out(static_cast<size_t>(g.batch * g.c_out * g.oh * g.ow));
  size_t at = 0;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t co = 0; co < g.c_out; ++co) {
      const int64_t gi = co / ocg;
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t xo = 0; xo < g.ow; ++xo) {
          double s = bias == nullptr ? 0.0 : bias[co];
          for (int64_t ci = 0; ci < icg; ++ci) {
            for (int64_t ki = 0; ki < g.kh; ++ki) {
              for (int64_t kj = 0; kj < g.kw; ++kj) {
                const int64_t r = y * g.sh - g.ph + ki * g.dh, c = xo * g.sw - g.pw + kj * g.dw;
                if (r < 0 || r >= g.h || c < 0 || c >= g.w) continue;
                s += static_cast<double>(
                         w[static_cast<size_t>(((co * icg + ci) * g.kh + ki) * g.kw + kj)]) *
                     x[static_cast<size_t>(((b * g.c_in + gi * icg + ci) * g.h + r) * g.w + c)];
              }
            }
          }
          if (e.lo > -INFINITY || e.hi < INFINITY)
            s = std::min<double>(std::max<double>(s, e.lo), e.hi);
          if (e.silu) s = s / (1.0 + std::exp(-s));
          out[at++] = s;
        }
      }
    }
  }
  return out;
}

// Max |got - want| over max(1, |want|) element by element; fails past tol.
void expect_close(const std::vector<float>& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0.0;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i]));
    worst = std::max(worst, err);
    if (!(err <= tol) && ++bad <= 3)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what << " (max error " << worst << ")";
}

opt::GroupedConvGeom random_geom(std::mt19937& rng, uint32_t seed) {
  opt::GroupedConvGeom g;
  g.batch = pick(rng, 1, 2);
  g.groups = pick(rng, 2, 6);
  g.c_in = g.groups * (seed % 5 == 0 ? pick(rng, 9, 20) : pick(rng, 1, 8));
  g.c_out = g.groups * 8 * pick(rng, 1, 3);
  const bool one_d = seed % 6 == 5;
  const int ks[] = {1, 3, 5, 2};
  g.kw = ks[seed % 4];
  g.kh = one_d ? 1 : (seed % 7 == 3 ? ks[(seed + 1) % 4] : g.kw);
  g.sw = pick(rng, 1, 3);
  g.sh = one_d ? 1 : (seed % 3 == 0 ? g.sw : pick(rng, 1, 2));
  g.dw = seed % 8 == 1 ? 2 : 1;
  g.dh = one_d ? 1 : (seed % 8 == 2 ? 2 : g.dw);
  g.pw = pick(rng, 0, g.kw / 2 + 1);
  g.ph = one_d ? 0 : pick(rng, 0, g.kh / 2 + 1);
  const int span_h =
      (static_cast<int>(g.kh) - 1) * static_cast<int>(g.dh) + 1 - 2 * static_cast<int>(g.ph);
  const int span_w =
      (static_cast<int>(g.kw) - 1) * static_cast<int>(g.dw) + 1 - 2 * static_cast<int>(g.pw);
  g.h = one_d ? 1 : std::max(1, span_h) + pick(rng, 0, 30);
  g.w = std::max(1, span_w) + pick(rng, 0, 40);
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  return g;
}

std::string describe(const opt::GroupedConvGeom& g) {
  char buf[200];
  std::snprintf(
      buf, sizeof buf,
      "b%lld cin%lld cout%lld g%lld %lldx%lld k%lldx%lld s%lldx%lld p%lldx%lld d%lldx%lld",
      (long long)g.batch, (long long)g.c_in, (long long)g.c_out, (long long)g.groups,
      (long long)g.h, (long long)g.w, (long long)g.kh, (long long)g.kw, (long long)g.sh,
      (long long)g.sw, (long long)g.ph, (long long)g.pw, (long long)g.dh, (long long)g.dw);
  return buf;
}

TEST(OptConvGroupedTest, MatchesDoubleReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  double worst_seen = 0.0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    const opt::GroupedConvGeom g = random_geom(rng, seed);
    ASSERT_TRUE(opt::conv_grouped_supported(g)) << describe(g);
    const int64_t icg = g.c_in / g.groups;
    const std::vector<float> x =
        random_values(static_cast<size_t>(g.batch * g.c_in * g.h * g.w), rng);
    const std::vector<float> w =
        random_values(static_cast<size_t>(g.c_out * icg * g.kh * g.kw), rng);
    const std::vector<float> bias = random_values(static_cast<size_t>(g.c_out), rng);
    opt::DepthwiseEpilogue e;
    if (seed % 3 == 1) {
      e.lo = 0.0f;
      e.hi = 6.0f;
    } else if (seed % 3 == 2) {
      e.silu = true;
    }
    const float* b = seed % 4 == 0 ? nullptr : bias.data();
    const std::vector<double> want = reference(g, x, w, b, e);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      const size_t threads = pool == nullptr ? 1 : pool->num_threads();
      // Every other seed with the weights packed beforehand (constant weights).
      const bool packed_run = seed % 2 == 0;
      std::vector<float> packed(opt::conv_grouped_packed_floats(g));
      opt::conv_grouped_pack(g, w.data(), packed.data());
      const size_t bytes = opt::conv_grouped_scratch_bytes(g, threads, packed_run);
      Scratch s(bytes);
      std::vector<float> got(want.size(), -7.0f);
      opt::conv_grouped_avx2(g, x.data(), packed_run ? nullptr : w.data(),
                             packed_run ? packed.data() : nullptr, b, e, got.data(), s.get(), bytes,
                             pool);
      // Sums of icg * kh * kw products of values up to 2 in magnitude.
      const double tol = 2e-6 * static_cast<double>(icg * g.kh * g.kw);
      const std::string what = "seed " + std::to_string(seed) + " " + describe(g) +
                               (pool == nullptr ? " 1 thread" : " 2 threads");
      expect_close(got, want, tol, what);
      for (size_t i = 0; i < got.size(); ++i) {
        worst_seen =
            std::max(worst_seen, std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i])));
      }
    }
  }
  std::printf("grouped conv: max relative error against double %.3g\n", worst_seen);
}

// Scratch for one thread only: the 2-thread call runs on one and gives the
// same values.
TEST(OptConvGroupedTest, RunsOnOneSlotOfScratch) {
  ETR_REQUIRE_AVX2_KERNELS();
  std::mt19937 rng(77);
  opt::GroupedConvGeom g;
  g.batch = 1;
  g.groups = 6;
  g.c_in = g.c_out = 48;
  g.h = g.w = 30;
  g.kh = g.kw = 3;
  g.ph = g.pw = 1;
  g.oh = g.ow = 30;
  const std::vector<float> x = random_values(static_cast<size_t>(48 * 30 * 30), rng);
  const std::vector<float> w = random_values(static_cast<size_t>(48 * 8 * 9), rng);
  const size_t one = opt::conv_grouped_scratch_bytes(g, 1, false);
  ASSERT_LT(one, opt::conv_grouped_scratch_bytes(g, 2, false));
  std::vector<float> a(static_cast<size_t>(48 * 30 * 30)), b(a.size());
  Scratch s1(one), s2(one);
  opt::conv_grouped_avx2(g, x.data(), w.data(), nullptr, nullptr, {}, a.data(), s1.get(), one,
                         nullptr);
  opt::conv_grouped_avx2(g, x.data(), w.data(), nullptr, nullptr, {}, b.data(), s2.get(), one,
                         test_thread_pool());
  EXPECT_EQ(a, b);
  expect_close(a, reference(g, x, w, nullptr, {}), 2e-6 * 72, "one slot");
}

// Geometries the kernel declines: depthwise-like widths are fine, but
// output channels per group not a multiple of 8, one group, or too many
// input channels per group are left to the GEMM.
TEST(OptConvGroupedTest, DeclinesOtherShapes) {
  ETR_REQUIRE_AVX2_KERNELS();
  opt::GroupedConvGeom g;
  g.batch = 1;
  g.groups = 4;
  g.c_in = 32;
  g.c_out = 32;
  g.h = g.w = g.oh = g.ow = 8;
  g.kh = g.kw = 3;
  g.ph = g.pw = 1;
  EXPECT_TRUE(opt::conv_grouped_supported(g));
  opt::GroupedConvGeom c = g;
  c.c_out = 24;  // 6 per group
  EXPECT_FALSE(opt::conv_grouped_supported(c));
  c = g;
  c.groups = 1;
  EXPECT_FALSE(opt::conv_grouped_supported(c));
  c = g;
  c.c_in = 4 * 65;
  EXPECT_FALSE(opt::conv_grouped_supported(c));
  c = g;
  c.oh = 9;  // not what the geometry gives
  EXPECT_FALSE(opt::conv_grouped_supported(c));
}

}  // namespace
}  // namespace testing
}  // namespace etr
