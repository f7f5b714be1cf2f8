// The channel-blocked depthwise kernel (util/conv_depthwise.h,
// depthwise_c8_avx2) against a plain loop in double: seeded random layers
// it takes (3x3 / 5x5, stride 1 / 2, channels in blocks of 8, planes from
// 1x1 to 40x40 outputs, odd sizes, 1-2 images), the fused epilogues, a NaN
// in the input, 1 and 2 threads, and one slot of scratch. Skipped where the
// CPU has no AVX2 + FMA.
#include <cmath>
#include <string>

#include "kernels/cpu_math/conv_depthwise.h"
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

struct Scratch {
  explicit Scratch(size_t bytes) : mem(bytes + 64) {}
  void* get() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(mem.data());
    return mem.data() + (64 - p % 64) % 64;
  }
  std::vector<uint8_t> mem;
};

std::vector<double> reference(const opt::DepthwiseGeom& g, const std::vector<float>& x,
                              const std::vector<float>& w, const float* bias,
                              const opt::DepthwiseEpilogue& e) {
  std::vector<double> out;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t c = 0; c < g.channels; ++c) {
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t xo = 0; xo < g.ow; ++xo) {
          double s = bias == nullptr ? 0.0 : bias[c];
          for (int64_t ki = 0; ki < g.kh; ++ki) {
            for (int64_t kj = 0; kj < g.kw; ++kj) {
              const int64_t r = y * g.sh - g.ph + ki, col = xo * g.sw - g.pw + kj;
              if (r < 0 || r >= g.h || col < 0 || col >= g.w) continue;
              s += static_cast<double>(w[static_cast<size_t>((c * g.kh + ki) * g.kw + kj)]) *
                   x[static_cast<size_t>(((b * g.channels + c) * g.h + r) * g.w + col)];
            }
          }
          if (e.lo > -INFINITY || e.hi < INFINITY)
            s = std::isnan(s) ? s : std::min<double>(std::max<double>(s, e.lo), e.hi);
          if (e.silu) s = s / (1.0 + std::exp(-s));
          out.push_back(s);
        }
      }
    }
  }
  return out;
}

// Relative to max(1, |want|); `tol` grows with the taps summed (float
// rounding of sums of products up to 4 in magnitude).
void expect_close(const std::vector<float>& got, const std::vector<double>& want, double tol,
                  const std::string& what, double* worst) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      if (!std::isnan(got[i]) && ++bad <= 3)
        ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want NaN";
      continue;
    }
    const double err = std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i]));
    *worst = std::max(*worst, err);
    if (!(err <= tol) && ++bad <= 3)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

TEST(OptConvDepthwiseC8Test, MatchesDoubleReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  double worst = 0.0;
  int taken = 0;
  for (uint32_t seed = 1; seed <= 48; ++seed) {
    std::mt19937 rng(seed);
    opt::DepthwiseGeom g;
    g.batch = pick(rng, 1, 2);
    g.channels = 8 * pick(rng, 1, 4);
    g.kh = g.kw = seed % 2 == 0 ? 3 : 5;
    g.sh = g.sw = seed % 3 == 0 ? 1 : 2;
    g.ph = g.pw = g.kh / 2;
    // Planes up to 40x40 outputs at stride 1, 32x32 at stride 2.
    const int max_side = g.sh == 1 ? 40 : 64;
    g.h = pick(rng, 1, max_side);
    g.w = seed % 5 == 0 ? pick(rng, 1, 3) : pick(rng, 1, max_side);
    g.oh = (g.h - 1) / g.sh + 1;
    g.ow = (g.w - 1) / g.sw + 1;
    ASSERT_TRUE(opt::depthwise_c8_supported(g)) << seed;
    ++taken;
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> x(static_cast<size_t>(g.batch * g.channels * g.h * g.w));
    for (float& v : x) v = dist(rng);
    if (seed % 4 == 1) x[static_cast<size_t>(pick(rng, 0, static_cast<int>(x.size()) - 1))] = NAN;
    std::vector<float> w(static_cast<size_t>(g.channels * g.kh * g.kw)),
        b(static_cast<size_t>(g.channels));
    for (float& v : w) v = dist(rng);
    for (float& v : b) v = dist(rng);
    opt::DepthwiseEpilogue e;
    if (seed % 3 == 1) {
      e.lo = 0.0f;
      e.hi = 6.0f;
    } else if (seed % 3 == 2) {
      e.silu = true;
    }
    const float* bias = seed % 7 == 0 ? nullptr : b.data();
    const std::vector<double> want = reference(g, x, w, bias, e);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      const size_t threads = pool == nullptr ? 1 : pool->num_threads();
      // Every third seed: scratch for one thread only.
      const size_t bytes = opt::depthwise_c8_scratch_bytes(g, seed % 3 == 0 ? 1 : threads);
      Scratch s(bytes);
      std::vector<float> got(want.size(), -7.0f);
      opt::depthwise_c8_avx2(g, x.data(), w.data(), bias, e, got.data(), s.get(), bytes, pool);
      expect_close(got, want, 5e-7 * static_cast<double>(g.kh * g.kw),
                   "seed " + std::to_string(seed) + " k" + std::to_string(g.kh) + " s" +
                       std::to_string(g.sh) + " " + std::to_string(g.h) + "x" +
                       std::to_string(g.w) + " c" + std::to_string(g.channels) +
                       (pool == nullptr ? " 1 thread" : " 2 threads"),
                   &worst);
    }
  }
  std::printf("depthwise c8: %d layers, max relative error against double %.3g\n", taken, worst);
}

// Where depthwise_c8_in_place says so (stride 1, whole planes), the output
// written over the input itself (the memory plan of EfficientNet's fused
// depthwise layers) matches the double reference of the original input, on
// 1 and 2 threads; banded planes and stride 2 are not claimed.
TEST(OptConvDepthwiseC8Test, InPlaceOverTheInputMatchesDoubleReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  // {h, w, k, channels}: EfficientNet-B0's stride-1 depthwise shapes, scaled.
  const int cases[][4] = {
      {112, 112, 3, 32}, {56, 56, 3, 24}, {28, 28, 5, 40}, {14, 13, 5, 48}, {7, 7, 3, 64}};
  double worst = 0.0;
  uint32_t seed = 300;
  for (const auto& c : cases) {
    std::mt19937 rng(seed++);
    opt::DepthwiseGeom g;
    g.batch = 1;
    g.channels = c[3];
    g.h = g.oh = c[0];
    g.w = g.ow = c[1];
    g.kh = g.kw = c[2];
    g.sh = g.sw = 1;
    g.ph = g.pw = c[2] / 2;
    ASSERT_TRUE(opt::depthwise_c8_in_place(g)) << c[0] << "x" << c[1];
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> x(static_cast<size_t>(g.channels * g.h * g.w));
    for (float& v : x) v = dist(rng);
    std::vector<float> w(static_cast<size_t>(g.channels * g.kh * g.kw)),
        b(static_cast<size_t>(g.channels));
    for (float& v : w) v = dist(rng);
    for (float& v : b) v = dist(rng);
    opt::DepthwiseEpilogue e;
    e.silu = true;
    const std::vector<double> want = reference(g, x, w, b.data(), e);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      const size_t threads = pool == nullptr ? 1 : pool->num_threads();
      const size_t bytes = opt::depthwise_c8_scratch_bytes(g, threads);
      Scratch s(bytes);
      std::vector<float> io = x;
      opt::depthwise_c8_avx2(g, io.data(), w.data(), b.data(), e, io.data(), s.get(), bytes, pool);
      expect_close(io, want, 5e-7 * static_cast<double>(g.kh * g.kw),
                   "in place " + std::to_string(g.h) + "x" + std::to_string(g.w) + " k" +
                       std::to_string(g.kh) + (pool == nullptr ? " 1 thread" : " 2 threads"),
                   &worst);
    }
  }
  std::printf("depthwise c8 in place: max relative error against double %.3g\n", worst);
  opt::DepthwiseGeom g;
  g.batch = 1;
  g.channels = 16;
  g.kh = g.kw = 3;
  g.ph = g.pw = 1;
  g.h = g.w = g.oh = g.ow = 260;  // banded: the output would overwrite rows a later band reads
  g.sh = g.sw = 1;
  EXPECT_FALSE(opt::depthwise_c8_in_place(g));
  g.h = g.w = 56;
  g.oh = g.ow = 28;
  g.sh = g.sw = 2;  // stride 2: blocks write over other blocks' input
  EXPECT_TRUE(opt::depthwise_c8_supported(g));
  EXPECT_FALSE(opt::depthwise_c8_in_place(g));
}

// Planes whose padded copy is too large to make whole run in bands of
// output rows, each band copying the input rows it reads.
TEST(OptConvDepthwiseC8Test, BandedPlanesMatchDoubleReference) {
  ETR_REQUIRE_AVX2_KERNELS();
  // {h, w, k, stride}
  const int cases[][4] = {{260, 250, 3, 1}, {231, 240, 5, 1}, {255, 262, 3, 2}};
  double worst = 0.0;
  uint32_t seed = 200;
  for (const auto& c : cases) {
    std::mt19937 rng(seed++);
    opt::DepthwiseGeom g;
    g.batch = 1;
    g.channels = 16;
    g.h = c[0];
    g.w = c[1];
    g.kh = g.kw = c[2];
    g.sh = g.sw = c[3];
    g.ph = g.pw = c[2] / 2;
    g.oh = (g.h - 1) / g.sh + 1;
    g.ow = (g.w - 1) / g.sw + 1;
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> x(static_cast<size_t>(g.channels * g.h * g.w));
    for (float& v : x) v = dist(rng);
    std::vector<float> w(static_cast<size_t>(g.channels * g.kh * g.kw)),
        b(static_cast<size_t>(g.channels));
    for (float& v : w) v = dist(rng);
    for (float& v : b) v = dist(rng);
    opt::DepthwiseEpilogue e;
    e.lo = 0.0f;
    e.hi = 6.0f;
    const std::vector<double> want = reference(g, x, w, b.data(), e);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      const size_t bytes =
          opt::depthwise_c8_scratch_bytes(g, pool == nullptr ? 1 : pool->num_threads());
      // Banded: the scratch is far below one whole padded plane.
      EXPECT_LT(bytes, static_cast<size_t>((g.h + 2 * g.ph) * (g.w + 2 * g.pw) * 8 * 4)) << g.h;
      Scratch sc(bytes);
      std::vector<float> got(want.size(), -7.0f);
      opt::depthwise_c8_avx2(g, x.data(), w.data(), b.data(), e, got.data(), sc.get(), bytes, pool);
      expect_close(got, want, 5e-7 * static_cast<double>(g.kh * g.kw),
                   std::to_string(g.h) + "x" + std::to_string(g.w) + " k" + std::to_string(g.kh) +
                       " s" + std::to_string(g.sh),
                   &worst);
    }
  }
  std::printf("depthwise c8 banded: max relative error against double %.3g\n", worst);
}

TEST(OptConvDepthwiseC8Test, DeclinesWhatTheFlatKernelRunsFaster) {
  ETR_REQUIRE_AVX2_KERNELS();
  opt::DepthwiseGeom g;
  g.batch = 1;
  g.channels = 16;
  g.kh = g.kw = 3;
  g.ph = g.pw = 1;
  g.h = g.w = g.oh = g.ow = 14;
  EXPECT_TRUE(opt::depthwise_c8_supported(g));
  g.h = g.w = 112;  // stride 2 over 56x56 outputs: the flat kernel
  g.sh = g.sw = 2;
  g.oh = g.ow = 56;
  EXPECT_FALSE(opt::depthwise_c8_supported(g));
  g.sh = g.sw = 1;
  g.h = g.w = g.oh = g.ow = 14;
  g.channels = 12;  // not in blocks of 8
  EXPECT_FALSE(opt::depthwise_c8_supported(g));
}

}  // namespace
}  // namespace testing
}  // namespace etr
