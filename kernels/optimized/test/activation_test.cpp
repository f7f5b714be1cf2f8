// The optimized relu, hardtanh, clamp, sigmoid and gelu against the portable
// kernels on seeded random shapes (vector remainders, empty, threaded sizes)
// with NaN/inf values. relu/hardtanh/clamp are exact; sigmoid and gelu use
// the vectorized exp/erf, within a few float ulp of std::exp/std::erf.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>

#include "kernels/cpu_math/vec_math.h"
#include "kernels/cpu_math/vec_math_impl.h"
#include "kernels/cpu_math/vec_transpose.h"
#include "kernels/optimized/test/compare_util.h"

namespace etr {
namespace testing {
namespace {

using ArgFn = std::function<void(KernelRunner&, std::vector<EValue*>&)>;

OpCall unary_call(const char* op, HostTensor& x, ArgFn extra) {
  OpCall c;
  c.op = op;
  c.outs = {{ScalarType::Float, x.shape()}};
  c.args = [&x, extra](KernelRunner& r, std::vector<HostTensor>& o) {
    std::vector<EValue*> args = {r.tensor(x)};
    if (extra) extra(r, args);
    args.push_back(r.tensor(o[0]));
    return args;
  };
  return c;
}

std::vector<std::vector<int32_t>> shapes(std::mt19937& rng) {
  std::vector<std::vector<int32_t>> s = {{1}, {7}, {8}, {9}, {0}, {3, 0, 2}, {397, 411}};
  for (size_t rank = 1; rank <= 4; ++rank) s.push_back(random_shape(rng, rank, 1, 17));
  return s;
}

struct Activation {
  const char* op;
  ArgFn extra;
  double rtol, atol;
};

TEST(OptimizedActivation, MatchesPortable) {
  std::mt19937 rng(4321);
  const Activation acts[] = {
      {"aten::relu.out", nullptr, 0.0, 0.0},
      {"aten::hardtanh.out",
       [](KernelRunner& r, std::vector<EValue*>& a) {
         a.push_back(r.d(0.0));
         a.push_back(r.d(6.0));
       },
       0.0, 0.0},
      {"aten::clamp.out",
       [](KernelRunner& r, std::vector<EValue*>& a) {
         a.push_back(r.d(-0.5));
         a.push_back(r.none());
       },
       0.0, 0.0},
      {"aten::clamp.out",
       [](KernelRunner& r, std::vector<EValue*>& a) {
         a.push_back(r.i(-2));
         a.push_back(r.d(1.25));
       },
       0.0, 0.0},
      {"aten::sigmoid.out", nullptr, 1e-6, 1e-7},
      {"aten::gelu.out",
       [](KernelRunner& r, std::vector<EValue*>& a) { a.push_back(r.str("none")); }, 1e-6, 1e-6},
      {"aten::gelu.out",
       [](KernelRunner& r, std::vector<EValue*>& a) { a.push_back(r.str("tanh")); }, 1e-6, 1e-6},
  };
  for (const auto& shape : shapes(rng)) {
    HostTensor x = random_float_tensor(shape, rng, -8.0f, 8.0f);
    sprinkle_specials(x, rng);
    for (const Activation& act : acts) {
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
        check_against_portable(unary_call(act.op, x, act.extra), pool, act.rtol, act.atol,
                               "optimized", std::string(act.op) + " " + shape_str(shape));
      }
    }
  }
}

// Dense sweeps over the ranges where exp and erf change regime.
TEST(OptimizedActivation, TranscendentalSweep) {
  std::vector<float> v;
  for (float x = -110.0f; x <= 110.0f; x += 0.01171875f) v.push_back(x);
  for (float x = -1e-3f; x <= 1e-3f; x += 1.5e-6f) v.push_back(x);
  const int32_t n = static_cast<int32_t>(v.size());
  HostTensor x = make_tensor<float>({n}, v);
  const char* modes[] = {"none", "tanh"};
  for (const char* mode : modes) {
    check_against_portable(
        unary_call("aten::gelu.out", x,
                   [mode](KernelRunner& r, std::vector<EValue*>& a) { a.push_back(r.str(mode)); }),
        test_thread_pool(), 1e-6, 1e-6, "optimized", std::string("gelu sweep ") + mode);
  }
  check_against_portable(unary_call("aten::sigmoid.out", x, nullptr), test_thread_pool(), 1e-6,
                         1e-37, "optimized", "sigmoid sweep");
}

TEST(OptimizedActivation, FallsBackToPortable) {
  HostTensor d = make_tensor<double>({3}, {-1.0, 0.5, 2.0});
  OpCall relu;
  relu.op = "aten::relu.out";
  relu.outs = {{ScalarType::Double, {3}}};
  relu.args = [&](KernelRunner& r, std::vector<HostTensor>& o) {
    return std::vector<EValue*>{r.tensor(d), r.tensor(o[0])};
  };
  check_against_portable(relu, test_thread_pool(), 0.0, 0.0, "portable", "relu Double");

  HostTensor x = make_tensor<float>({4}, {-1.0f, 0.5f, 2.0f, 7.0f});
  check_against_portable(unary_call("aten::clamp.out", x,
                                    [](KernelRunner& r, std::vector<EValue*>& a) {
                                      a.push_back(r.d(std::nan("")));
                                      a.push_back(r.d(1.0));
                                    }),
                         test_thread_pool(), 0.0, 0.0, "portable", "clamp with a NaN bound");
}

}  // namespace
}  // namespace testing
}  // namespace etr

namespace etr {
namespace testing {
namespace {

// SiLU (the activation of etr::conv_bn_silu.fused) as the exported graph
// computes it, x * sigmoid(x): torch 2.15.0 eager,
// x * torch.sigmoid(x) for x = [-20, -3, -0.5, 0, 0.5, 3, 20, -90].
TEST(OptimizedVecMath, SiluMatchesTorch) {
  const std::vector<float> x = {-20.0f, -3.0f, -0.5f, 0.0f, 0.5f, 3.0f, 20.0f, -90.0f};
  const std::vector<float> want = {-4.12230747e-08f, -0.142277628f, -0.188770339f, 0.0f,
                                   0.311229676f,     2.85772228f,   20.0f,         -0.0f};
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kSilu;
  for (int body = 0; body < 2; ++body) {
    std::vector<float> y(x.size());
    if (body == 0) {
      opt::unary(p, x.data(), y.data(), x.size());
    } else {
      opt::generic::unary(p, x.data(), y.data(), x.size());
    }
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(y[i], want[i], 2e-7 * std::abs(want[i]) + 1e-12) << body << " " << i;
    }
  }
}

// Hardswish as the exporter decomposes it (etr::hardswish.fused):
// x * clamp(clamp(x + 3, min=0), max=6) / 6 in torch 2.11.0 eager float32
// for x = [-20, -3, -2.9, -1.5, -0.1, 0, 0.7, 2.999, 3, 5.5, 40] (each step
// rounded, as the fused kernel must; exact equality) and a NaN.
TEST(OptimizedVecMath, HardswishMatchesTorch) {
  const std::vector<float> x = {-20.0f, -3.0f,  -2.9f, -1.5f, -0.1f, 0.0f,
                                0.7f,   2.999f, 3.0f,  5.5f,  40.0f, std::nanf("")};
  const std::vector<float> want = {-0.0f,          -0.0f, -0.0483332872f, -0.375f,
                                   -0.0483333357f, 0.0f,  0.431666642f,   2.99850011f,
                                   3.0f,           5.5f,  40.0f};
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kHardswish;
  p.shift = 3.0f;
  p.lo = 0.0f;
  p.hi = std::numeric_limits<float>::infinity();
  p.lo2 = -std::numeric_limits<float>::infinity();
  p.hi2 = 6.0f;
  p.divisor = 6.0f;
  for (int body = 0; body < 2; ++body) {
    std::vector<float> y(x.size());
    if (body == 0) {
      opt::unary(p, x.data(), y.data(), x.size());
    } else {
      opt::generic::unary(p, x.data(), y.data(), x.size());
    }
    double max_err = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(y[i], want[i]) << body << " " << i;
      max_err = std::max(max_err, static_cast<double>(std::abs(y[i] - want[i])));
    }
    EXPECT_TRUE(std::isnan(y.back())) << body;
    std::printf("hardswish body %d: max abs error %.3g\n", body, max_err);
  }
}

// GELU ('none', the erf form) against float64 over a dense sweep of the range
// where erf is not +-1: the rational erf of the AVX2 body is within 3.5e-7 of
// erf, so the result is within 1e-6 + 1e-6 |y| (the portable comparison's
// bound).
TEST(OptimizedActivation, GeluErfMatchesFloat64Reference) {
  std::vector<float> v;
  for (float x = -12.0f; x <= 12.0f; x += 0.000732421875f) v.push_back(x);
  std::vector<float> y(v.size());
  opt::UnaryParams p;
  p.kind = opt::UnaryKind::kGeluErf;
  opt::unary(p, v.data(), y.data(), v.size());
  double max_abs = 0.0, max_rel = 0.0;
  size_t bad = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    const double want = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    const double err = std::abs(static_cast<double>(y[i]) - want);
    max_abs = std::max(max_abs, err);
    if (std::abs(want) > 1e-3) max_rel = std::max(max_rel, err / std::abs(want));
    if (!(err <= 1e-6 + 1e-6 * std::abs(want)) && ++bad <= 3) {
      ADD_FAILURE() << "gelu(" << v[i] << ") = " << y[i] << ", float64 " << want;
    }
  }
  std::printf("gelu erf: max abs error %.3g, max relative error (|y| > 1e-3) %.3g\n", max_abs,
              max_rel);
  EXPECT_EQ(bad, 0u);
}

// The generic bodies (the path of CPUs without AVX2) against the dispatched
// ones, which on an AVX2 machine are the AVX2 bodies checked above.
TEST(OptimizedVecMath, GenericBodiesMatchDispatched) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-9.0f, 9.0f);
  for (size_t n : {size_t{0}, size_t{5}, size_t{8}, size_t{77}}) {
    std::vector<float> x(n), w(n), g(n), v(n);
    for (float& f : x) f = dist(rng);
    for (float& f : w) f = dist(rng);
    if (n > 3) x[3] = std::nanf("");
    const opt::UnaryKind kinds[] = {opt::UnaryKind::kRelu,     opt::UnaryKind::kClamp,
                                    opt::UnaryKind::kSigmoid,  opt::UnaryKind::kGeluErf,
                                    opt::UnaryKind::kGeluTanh, opt::UnaryKind::kSilu,
                                    opt::UnaryKind::kHardswish};
    for (opt::UnaryKind k : kinds) {
      opt::UnaryParams p;
      p.kind = k;
      p.lo = -1.5f;
      p.hi = 2.0f;
      p.shift = 0.75f;
      p.lo2 = -1.0f;
      p.hi2 = 1.5f;
      p.divisor = 3.0f;
      opt::generic::unary(p, x.data(), g.data(), n);
      opt::unary(p, x.data(), v.data(), n);
      for (size_t i = 0; i < n; ++i) {
        if (std::isnan(g[i])) {
          EXPECT_TRUE(std::isnan(v[i])) << static_cast<int>(k) << " " << i;
        } else {
          EXPECT_NEAR(v[i], g[i], 1e-6 + 1e-6 * std::abs(g[i])) << static_cast<int>(k) << " " << i;
        }
      }
    }
    opt::BinaryParams bp;
    bp.kind = opt::BinaryKind::kSub;
    bp.use_alpha = true;
    bp.alpha = 0.75f;
    opt::generic::binary(bp, w.data(), 1, x.data() + (n > 0 ? 1 : 0), 0, g.data(), n);
    opt::binary(bp, w.data(), 1, x.data() + (n > 0 ? 1 : 0), 0, v.data(), n);
    EXPECT_EQ(g, v);
    if (n > 3) x[3] = 1.0f;
    EXPECT_EQ(opt::generic::max(x.data(), n), opt::max(x.data(), n));
    EXPECT_NEAR(opt::generic::exp_shift_sum(x.data(), 9.0f, g.data(), n),
                opt::exp_shift_sum(x.data(), 9.0f, v.data(), n), 1e-5);
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(v[i], g[i], 2e-6 * g[i]) << "exp " << i;
    // Shifted by the max (softmax), with a -inf element (a masked score).
    if (n > 4) x[4] = -INFINITY;
    const float m = opt::max(x.data(), n);
    EXPECT_NEAR(opt::generic::exp_shift_sum_nonpositive(x.data(), m, g.data(), n),
                opt::exp_shift_sum_nonpositive(x.data(), m, v.data(), n), 1e-5);
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(v[i], g[i], 2e-6 * g[i]) << "exp <= 0, " << i;
    if (n > 4) {
      EXPECT_EQ(v[4], 0.0f);
      x[4] = 2.0f;
    }
    EXPECT_NEAR(opt::generic::sum_sq_dev_f64(x.data(), 0.5, n),
                opt::sum_sq_dev_f64(x.data(), 0.5, n), 1e-9);
    opt::generic::normalize(x.data(), 0.25, 1.5, w.data(), x.data(), g.data(), n);
    opt::normalize(x.data(), 0.25, 1.5, w.data(), x.data(), v.data(), n);
    EXPECT_EQ(g, v);
    opt::generic::normalize_f32(x.data(), 0.25f, 1.5f, w.data(), x.data(), g.data(), n);
    opt::normalize_f32(x.data(), 0.25f, 1.5f, w.data(), x.data(), v.data(), n);
    EXPECT_EQ(g, v);
    opt::generic::normalize_f32(x.data(), 0.25f, 1.5f, nullptr, nullptr, g.data(), n);
    opt::normalize_f32(x.data(), 0.25f, 1.5f, nullptr, nullptr, v.data(), n);
    EXPECT_EQ(g, v);
    std::vector<float> t(n * 3), tg(n * 3), tv(n * 3);
    for (float& f : t) f = dist(rng);
    opt::generic::transpose_f32(t.data(), 3, tg.data(), static_cast<int64_t>(n), 3,
                                static_cast<int64_t>(n));
    opt::transpose_f32(t.data(), 3, tv.data(), static_cast<int64_t>(n), 3, static_cast<int64_t>(n));
    EXPECT_EQ(tg, tv);
  }
}

// The GEMM's 6-row A panel (transpose_6_f32): every element in place and the
// padding rows zero, for lengths around the 8-element register blocks,
// nothing written past the 6 * rows floats, and the generic body the same.
TEST(OptimizedVecMath, SixRowPanelTransposeKeepsEveryElementAndItsBounds) {
  const int64_t ldi = 37;
  std::vector<float> in(6 * ldi);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) + 0.5f;
  for (int cols = 1; cols <= 6; ++cols) {
    for (int64_t rows : {0, 1, 7, 8, 9, 15, 16, 17, 31, 37}) {
      const float guard = -7.0f;
      std::vector<float> out(6 * rows + 8, guard), gen(6 * rows + 8, guard);
      opt::transpose_6_f32(in.data(), ldi, cols, out.data(), rows);
      opt::generic::transpose_6_f32(in.data(), ldi, cols, gen.data(), rows);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < 6; ++j) {
          ASSERT_EQ(out[i * 6 + j], j < cols ? in[j * ldi + i] : 0.0f)
              << "cols " << cols << " rows " << rows << " i " << i << " j " << j;
        }
      }
      for (size_t e = 6 * rows; e < out.size(); ++e) ASSERT_EQ(out[e], guard) << "rows " << rows;
      EXPECT_EQ(out, gen) << "cols " << cols << " rows " << rows;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
