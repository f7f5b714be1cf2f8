// The GEMM engine (kernels/cpu_math/gemm.h) against a double-accumulating
// reference: random sizes (0, 1, remainders of the 6x16 micro-tile and of the
// K blocks), row-major / transposed / padded operand views, packed and
// unpacked operands, every epilogue field, batches, on 1 and 2 threads.
#include "kernels/cpu_math/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm_internal.h"
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace {

using opt::GemmArgs;
using opt::MatrixView;
using opt::PackedMatrix;

// `count` [rows, cols] operands in one buffer (`item` floats apart), stored
// row-major (layout 0), transposed (1) or with padded rows (2).
struct Operand {
  std::vector<float> store;
  MatrixView view;  // item 0
  ptrdiff_t item = 0;
  MatrixView at_item(int64_t b) const {
    MatrixView v = view;
    v.data += b * item;
    return v;
  }
};

Operand make_operand(int64_t rows, int64_t cols, int layout, int64_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operand o;
  const int64_t pad = 3;
  o.item = layout == 2 ? rows * (cols + pad) : rows * cols;
  o.store.resize(static_cast<size_t>(o.item * count) + 1);  // never empty
  for (float& v : o.store) v = dist(rng);
  if (layout == 0) o.view = MatrixView{o.store.data(), cols, 1};
  if (layout == 1) o.view = MatrixView{o.store.data(), 1, rows};
  if (layout == 2) o.view = MatrixView{o.store.data(), cols + pad, 1};
  return o;
}

float at(const MatrixView& v, int64_t i, int64_t j) {
  return v.data[i * v.row_stride + j * v.col_stride];
}

struct Case {
  int64_t m, n, k, batch;
  int layout_a, layout_b;
  bool pack_a, pack_b;
  bool use_beta, row_bias, col_bias, clamp;
  float alpha, beta;
  // The epilogue's post activation: hardswish as the exporter decomposes it.
  bool post = false;
  // The epilogue's SiLU (after the clamp, before the post activation).
  bool silu = false;
};

// x * clamp(x + 3, 0, 6) / 6 (opt::UnaryKind::kHardswish with MobileNetV3's
// constants).
const opt::UnaryParams& hardswish_params() {
  static const opt::UnaryParams p = [] {
    opt::UnaryParams q;
    q.kind = opt::UnaryKind::kHardswish;
    q.shift = 3.0f;
    q.lo = 0.0f;
    q.hi = std::numeric_limits<float>::infinity();
    q.lo2 = -std::numeric_limits<float>::infinity();
    q.hi2 = 6.0f;
    q.divisor = 6.0f;
    return q;
  }();
  return p;
}

std::string describe(const Case& c, bool threaded) {
  return "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         " batch=" + std::to_string(c.batch) + " layouts=" + std::to_string(c.layout_a) +
         std::to_string(c.layout_b) + " packed=" + std::to_string(c.pack_a) +
         std::to_string(c.pack_b) + " beta=" + std::to_string(c.use_beta) +
         " biases=" + std::to_string(c.row_bias) + std::to_string(c.col_bias) +
         " clamp=" + std::to_string(c.clamp) + " post=" + std::to_string(c.post) +
         " silu=" + std::to_string(c.silu) + (threaded ? " 2 threads" : " 1 thread");
}

// A case's operands, C and the GemmArgs over them (not copyable: g points
// into the members).
struct CaseData {
  Operand as, bs;
  std::vector<float> row_bias, col_bias, c, c0, pa_store, pb_store;
  PackedMatrix pa, pb;
  int64_t ldc = 0;
  GemmArgs g;
  CaseData() = default;
  CaseData(const CaseData&) = delete;
};

void fill_args(const Case& cs, CaseData& d) {
  GemmArgs& g = d.g;
  g.m = cs.m;
  g.n = cs.n;
  g.k = cs.k;
  g.c = d.c.data();
  g.ldc = d.ldc;
  g.epilogue.alpha = cs.alpha;
  g.epilogue.beta = cs.use_beta ? cs.beta : 0.0f;
  if (cs.row_bias) g.epilogue.row_bias = d.row_bias.data();
  if (cs.col_bias) g.epilogue.col_bias = d.col_bias.data();
  if (cs.clamp) {
    g.epilogue.lo = -0.25f;
    g.epilogue.hi = 0.5f;
  }
  if (cs.post) g.epilogue.post = &hardswish_params();
  g.epilogue.silu = cs.silu;
  // Packed operands are shared by the batch: only item 0's are used then.
  if (cs.pack_a) {
    d.pa_store.resize(opt::packed_a_bytes(cs.m, cs.k) / sizeof(float) + 1);
    d.pa = opt::pack_a(d.as.view, cs.m, cs.k, d.pa_store.data());
    g.packed_a = &d.pa;
  } else {
    g.a = d.as.view;
    g.batch_stride_a = d.as.item;
  }
  if (cs.pack_b) {
    d.pb_store.resize(opt::packed_b_bytes(cs.k, cs.n) / sizeof(float) + 1);
    d.pb = opt::pack_b(d.bs.view, cs.k, cs.n, d.pb_store.data());
    g.packed_b = &d.pb;
  } else {
    g.b = d.bs.view;
    g.batch_stride_b = d.bs.item;
  }
  g.batch = cs.batch;
  g.batch_stride_c = cs.m * d.ldc;
}

void make_case(const Case& cs, std::mt19937& rng, CaseData& d) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  d.ldc = cs.n + (cs.n % 3);
  d.as = make_operand(cs.m, cs.k, cs.layout_a, cs.batch, rng);
  d.bs = make_operand(cs.k, cs.n, cs.layout_b, cs.batch, rng);
  d.row_bias.resize(static_cast<size_t>(cs.m) + 1);
  d.col_bias.resize(static_cast<size_t>(cs.n) + 1);
  for (float& v : d.row_bias) v = dist(rng);
  for (float& v : d.col_bias) v = dist(rng);
  d.c.resize(static_cast<size_t>(cs.batch * cs.m * d.ldc) + 1);
  for (float& v : d.c) v = cs.use_beta ? dist(rng) : std::numeric_limits<float>::quiet_NaN();
  d.c0 = d.c;
  fill_args(cs, d);
}

// Whether C[b][i][j] is within float rounding of the double reference.
bool element_ok(const Case& cs, const CaseData& d, int64_t b, int64_t i, int64_t j, double* ref) {
  const size_t idx = static_cast<size_t>((b * cs.m + i) * d.ldc + j);
  const float got = d.c[idx], before = d.c0[idx];
  if (j >= cs.n) return std::isnan(before) ? std::isnan(got) : got == before;  // untouched
  const MatrixView av = d.as.at_item(cs.pack_a ? 0 : b);
  const MatrixView bv = d.bs.at_item(cs.pack_b ? 0 : b);
  double acc = 0.0, mag = 0.0;
  for (int64_t p = 0; p < cs.k; ++p) {
    const double prod = static_cast<double>(at(av, i, p)) * at(bv, p, j);
    acc += prod;
    mag += std::abs(prod);
  }
  double v = cs.alpha * acc;
  mag *= std::abs(cs.alpha);
  if (cs.use_beta) {
    v += static_cast<double>(cs.beta) * before;
    mag += std::abs(static_cast<double>(cs.beta) * before);
  }
  if (cs.row_bias) v += d.row_bias[static_cast<size_t>(i)];
  if (cs.col_bias) v += d.col_bias[static_cast<size_t>(j)];
  if (cs.clamp) v = std::min(std::max(v, -0.25), 0.5);
  // Hardswish's slope is at most 1.5: the bound grows by that much.
  // SiLU's slope is at most 1.1 and its own error a few float ulp.
  const double slope = (cs.post ? 1.5 : 1.0) * (cs.silu ? 1.1 : 1.0);
  if (cs.silu) v = v / (1.0 + std::exp(-v));
  if (cs.post) v = v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
  *ref = v;
  return std::abs(got - v) <= slope * (1e-6 * (mag + 3.0) + 1e-6);
}

// Runs one case through gemm() and checks every element of every batch item.
// Adds the largest |C - reference| over the computed elements to *max_err.
void check_case(const Case& cs, bool threaded, std::mt19937& rng, double* max_err_out = nullptr) {
  SCOPED_TRACE(describe(cs, threaded));
  CaseData d;
  make_case(cs, rng, d);
  ThreadPool* pool = threaded ? testing::test_thread_pool() : nullptr;
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  std::vector<uint8_t> temp_bytes(opt::gemm_scratch_bytes(d.g, threads) + 1);
  MemoryAllocator temp(temp_bytes.data(), temp_bytes.size());
  ASSERT_EQ(opt::gemm(d.g, &temp, pool), Error::Ok);
  size_t bad = 0;
  double max_err = 0.0;
  for (int64_t b = 0; b < cs.batch; ++b) {
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < d.ldc; ++j) {
        double ref = 0.0;
        const bool ok = element_ok(cs, d, b, i, j, &ref);
        if (j < cs.n) {
          const float got = d.c[static_cast<size_t>((b * cs.m + i) * d.ldc + j)];
          max_err = std::max(max_err, std::abs(got - ref));
        }
        if (!ok && ++bad <= 3) {
          ADD_FAILURE() << "C[" << b << "][" << i << "][" << j
                        << "] = " << d.c[static_cast<size_t>((b * cs.m + i) * d.ldc + j)]
                        << ", reference " << ref;
        }
      }
    }
  }
  EXPECT_EQ(bad, 0u);
  if (max_err_out != nullptr) *max_err_out = std::max(*max_err_out, max_err);
}

TEST(GemmTest, RandomShapesLayoutsAndEpilogues) {
  std::mt19937 rng(20240611);
  // Sizes around the micro-tile (6x16) and the blocks (mc 144, nc 256, kc 320).
  const int64_t ms[] = {0, 1, 2, 5, 6, 7, 13, 37, 150, 300};
  const int64_t ns[] = {0, 1, 3, 15, 16, 17, 33, 100, 270, 530};
  const int64_t ks[] = {0, 1, 2, 7, 64, 321, 700};
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  for (int iter = 0; iter < 160; ++iter) {
    Case c;
    c.m = ms[pick(rng) % 10];
    c.n = ns[pick(rng) % 10];
    c.k = ks[pick(rng) % 7];
    // Keep the reference cheap: large m, n and k together are rare.
    if (c.m * c.n * c.k > 4000000) c.k = ks[pick(rng) % 4];
    c.batch = pick(rng) % 5 == 0 ? 3 : 1;
    c.layout_a = pick(rng) % 3;
    c.layout_b = pick(rng) % 3;
    c.pack_a = pick(rng) % 3 == 0;
    c.pack_b = pick(rng) % 3 == 0;
    c.use_beta = pick(rng) % 2 == 0;
    c.row_bias = pick(rng) % 3 == 0;
    c.col_bias = pick(rng) % 3 == 0;
    c.clamp = pick(rng) % 4 == 0;
    c.alpha = pick(rng) % 2 == 0 ? 1.0f : -0.75f;
    c.beta = pick(rng) % 2 == 0 ? 1.0f : 0.5f;
    c.post = pick(rng) % 4 == 0;
    c.silu = pick(rng) % 4 == 0;
    check_case(c, iter % 2 == 1, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The post activation (hardswish, as conv -> batch norm -> hardswish fuses
// it) on MobileNetV3's 1x1 convolution shapes, packed weights, row bias,
// with and without a clamp before it, against the double reference.
TEST(GemmTest, PostHardswishMatchesFloat64Reference) {
  std::mt19937 rng(33);
  const Case cases[] = {
      {64, 12544 / 4, 16, 1, 0, 0, true, false, false, true, false, false, 1.0f, 0.0f, true},
      {672, 196, 112, 1, 0, 0, true, false, false, true, false, false, 1.0f, 0.0f, true},
      {960, 49, 160, 1, 0, 0, true, false, false, true, false, true, 1.0f, 0.0f, true},
      {37, 100, 7, 2, 0, 2, false, false, false, true, true, false, -0.75f, 0.0f, true},
  };
  double max_err = 0.0;
  for (const Case& c : cases) {
    check_case(c, true, rng, &max_err);
    check_case(c, false, rng, &max_err);
  }
  std::printf("gemm + hardswish: max abs error %.3g against the float64 reference\n", max_err);
}

// The epilogue's SiLU (conv -> batch norm -> SiLU, EfficientNet's 1x1
// convolutions; the AVX-512 micro-kernel applies it in registers, the others
// on the finished tile) against the double reference.
TEST(GemmTest, SiluEpilogueMatchesFloat64Reference) {
  std::mt19937 rng(34);
  const Case cases[] = {
      {96, 12544 / 4, 16, 1, 0, 0, true, false, false, true, false, false, 1.0f, 0.0f},
      {144, 3136, 24, 1, 0, 0, true, false, false, true, false, false, 1.0f, 0.0f},
      {1152, 49, 192, 1, 0, 0, true, false, false, true, false, false, 1.0f, 0.0f},
      {13, 100, 7, 2, 0, 2, false, false, false, true, true, true, -0.75f, 0.0f},
      {49, 320, 300, 1, 1, 0, false, true, false, false, true, false, 1.0f, 0.0f},
  };
  double max_err = 0.0;
  for (Case c : cases) {
    c.silu = true;
    check_case(c, true, rng, &max_err);
    check_case(c, false, rng, &max_err);
  }
  std::printf("gemm + SiLU: max abs error %.3g against the float64 reference\n", max_err);
}

// A k_scale / k_shift case: [m, k] x [k, n] operands, each packed ahead or
// read in place in the given layout (make_operand), with (relu) or without
// the clamp at 0 of k_relu.
struct KCase {
  int64_t m, n, k;
  bool pack_a, pack_b;
  int layout_a, layout_b;
  bool relu;
};

// Runs kc on pool with g.k_scale = scale (and g.k_shift = shift, g.k_relu
// = kc.relu) and checks C against the float64 product of as and bs in which
// the operand packed per call (B, or A when B comes packed) passes through
// transform(v, p) first; returns the largest error.
template <typename Transform>
double check_k_transform(const KCase& kc, ThreadPool* pool, const Operand& as, const Operand& bs,
                         const float* scale, const float* shift, Transform transform) {
  std::vector<float> pa_store, pb_store;
  PackedMatrix pa, pb;
  GemmArgs g;
  g.m = kc.m;
  g.n = kc.n;
  g.k = kc.k;
  if (kc.pack_a) {
    pa_store.resize(opt::packed_a_bytes(kc.m, kc.k) / sizeof(float) + 1);
    pa = opt::pack_a(as.view, kc.m, kc.k, pa_store.data());
    g.packed_a = &pa;
  } else {
    g.a = as.view;
  }
  if (kc.pack_b) {
    pb_store.resize(opt::packed_b_bytes(kc.k, kc.n) / sizeof(float) + 1);
    pb = opt::pack_b(bs.view, kc.k, kc.n, pb_store.data());
    g.packed_b = &pb;
  } else {
    g.b = bs.view;
  }
  std::vector<float> c(static_cast<size_t>(kc.m * kc.n), std::nanf(""));
  g.c = c.data();
  g.ldc = kc.n;
  g.k_scale = scale;
  g.k_shift = shift;
  g.k_relu = kc.relu;
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  std::vector<uint8_t> temp_bytes(opt::gemm_scratch_bytes(g, threads) + 1);
  MemoryAllocator temp(temp_bytes.data(), temp_bytes.size());
  const Error err = opt::gemm(g, &temp, pool);
  EXPECT_EQ(err, Error::Ok);
  if (err != Error::Ok) return 0.0;
  const bool on_b = !kc.pack_b;
  double max_err = 0.0;
  size_t bad = 0;
  for (int64_t i = 0; i < kc.m; ++i) {
    for (int64_t j = 0; j < kc.n; ++j) {
      double acc = 0.0, mag = 0.0;
      for (int64_t p = 0; p < kc.k; ++p) {
        const float av = on_b ? at(as.view, i, p) : transform(at(as.view, i, p), p);
        const float bv = on_b ? transform(at(bs.view, p, j), p) : at(bs.view, p, j);
        acc += static_cast<double>(av) * bv;
        mag += std::abs(static_cast<double>(av) * bv);
      }
      const double e = std::abs(c[static_cast<size_t>(i * kc.n + j)] - acc);
      max_err = std::max(max_err, e);
      if (!(e <= 1e-6 * (mag + 3.0)) && ++bad <= 3) {
        ADD_FAILURE() << "m=" << kc.m << " n=" << kc.n << " k=" << kc.k << " C[" << i << "][" << j
                      << "] = " << c[static_cast<size_t>(i * kc.n + j)] << ", reference " << acc;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
  return max_err;
}

// GemmArgs::k_scale (a squeeze-excite scale folded into a 1x1
// convolution): C = A @ diag(s) @ B with s applied to the operand packed per
// call (B, or A when B comes packed), each scaled element rounded once, as
// a separate mul would; every packing layout and the panel-by-panel path,
// against the double reference of the rounded products.
TEST(GemmTest, KScaleMatchesFloat64ReferenceOfScaledOperand) {
  std::mt19937 rng(35);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  const KCase cases[] = {
      {112, 196, 672, true, false, 0, 0, false},  // projection: weights packed, activations scaled
      {24, 3136, 96, true, false, 0, 0, false},   // few rows: B packed (not read in place)
      {49, 48, 64, false, true, 1, 0, false},     // transposed product: A = X^T scaled
      {5, 40, 700, false, true, 0, 0, false},     // few rows against packed B, K blocks
      {37, 70, 33, false, false, 2, 2, false},    // both unpacked: B scaled
  };
  double max_err = 0.0;
  for (const KCase& kc : cases) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), testing::test_thread_pool()}) {
      Operand as = make_operand(kc.m, kc.k, kc.layout_a, 1, rng);
      Operand bs = make_operand(kc.k, kc.n, kc.layout_b, 1, rng);
      std::vector<float> scale(static_cast<size_t>(kc.k));
      for (float& v : scale) v = dist(rng);
      auto transform = [&](float v, int64_t p) { return v * scale[static_cast<size_t>(p)]; };
      max_err =
          std::max(max_err, check_k_transform(kc, pool, as, bs, scale.data(), nullptr, transform));
    }
  }
  std::printf("gemm with k_scale: max abs error %.3g against the float64 reference\n", max_err);
  // Both operands packed: nothing to scale.
  GemmArgs g;
  std::vector<float> a(6 * 4, 1.0f), b(4 * 16, 1.0f), c(6 * 16), s(4, 1.0f);
  std::vector<float> pa_store(opt::packed_a_bytes(6, 4) / sizeof(float) + 1);
  std::vector<float> pb_store(opt::packed_b_bytes(4, 16) / sizeof(float) + 1);
  const PackedMatrix pa = opt::pack_a(MatrixView{a.data(), 4, 1}, 6, 4, pa_store.data());
  const PackedMatrix pb = opt::pack_b(MatrixView{b.data(), 16, 1}, 4, 16, pb_store.data());
  g.m = 6;
  g.n = 16;
  g.k = 4;
  g.packed_a = &pa;
  g.packed_b = &pb;
  g.c = c.data();
  g.ldc = 16;
  g.k_scale = s.data();
  EXPECT_EQ(opt::gemm(g, nullptr, nullptr), Error::InvalidArgument);
}

// GemmArgs::k_shift and k_relu (a batch norm -> ReLU folded into a 1x1
// convolution's input): the operand packed per call (B, or A when B comes
// packed) becomes max(v * s[k] + t[k], 0), the multiply and the add each
// rounded, as the batch norm kernel then the relu would; row-major and
// column-major B, the transposed product, the panel-by-panel path, with and
// without the clamp, against the double reference of the transformed
// operand. A shift without a scale is refused.
TEST(GemmTest, KShiftReluMatchesFloat64ReferenceOfTransformedOperand) {
  std::mt19937 rng(36);
  std::uniform_real_distribution<float> dist(0.25f, 1.5f), sdist(-0.5f, 0.5f);
  const KCase cases[] = {
      {128, 196, 672, true, false, 0, 0, true},  // 14x14 bottleneck: B packed per call
      {37, 70, 33, true, false, 0, 1, true},     // column-major B: packed, then transformed
      {49, 128, 544, false, true, 1, 0, true},   // transposed product: A = X^T transformed
      {5, 40, 700, false, true, 0, 0, false},    // few rows against packed B, K blocks
      {40, 50, 600, false, false, 2, 2, true},   // both unpacked: B transformed, K blocks
      {24, 45, 300, true, false, 0, 0, false},   // B shifted, no clamp: 2 panels + 13 columns
  };
  double max_err = 0.0;
  for (const KCase& kc : cases) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), testing::test_thread_pool()}) {
      Operand as = make_operand(kc.m, kc.k, kc.layout_a, 1, rng);
      Operand bs = make_operand(kc.k, kc.n, kc.layout_b, 1, rng);
      std::vector<float> scale(static_cast<size_t>(kc.k)), shift(scale.size());
      for (float& v : scale) v = dist(rng);
      for (float& v : shift) v = sdist(rng);
      auto transform = [&](float v, int64_t p) {
        float y = v * scale[static_cast<size_t>(p)];
        y = y + shift[static_cast<size_t>(p)];
        return kc.relu ? std::max(y, 0.0f) : y;
      };
      max_err = std::max(
          max_err, check_k_transform(kc, pool, as, bs, scale.data(), shift.data(), transform));
    }
  }
  std::printf("gemm with k_shift / k_relu: max abs error %.3g against the float64 reference\n",
              max_err);
  GemmArgs g;
  std::vector<float> a(6 * 4, 1.0f), b(4 * 16, 1.0f), c(6 * 16), t(4, 1.0f);
  g.m = 6;
  g.n = 16;
  g.k = 4;
  g.a = MatrixView{a.data(), 4, 1};
  g.b = MatrixView{b.data(), 16, 1};
  g.c = c.data();
  g.ldc = 16;
  g.k_shift = t.data();
  EXPECT_EQ(opt::gemm(g, nullptr, nullptr), Error::InvalidArgument);
}

TEST(GemmTest, LargeShapesEveryPathOnTwoThreads) {
  std::mt19937 rng(7);
  // Transformer linear, 1x1 convolution, im2col convolution, single row.
  const Case cases[] = {
      {128, 256, 256, 1, 0, 0, false, true, false, false, true, false, 1.0f, 0.0f},
      {96, 196, 160, 1, 0, 0, true, false, false, true, false, true, 1.0f, 0.0f},
      {64, 49, 1152, 1, 0, 0, true, false, true, false, false, false, 1.0f, 1.0f},
      {1, 700, 300, 1, 0, 1, false, true, false, false, true, false, 1.0f, 0.0f},
      // A few rows against packed B with several K blocks (panel by panel).
      {1, 300, 1100, 1, 0, 0, false, true, true, false, true, true, 1.0f, 0.5f},
      {5, 70, 1300, 2, 0, 0, true, true, false, true, false, false, -0.75f, 0.0f},
      {3, 40, 1000, 1, 0, 1, false, true, false, false, true, false, 1.0f, 0.0f},
      // Two M blocks (197 rows) x several N blocks against packed B, K one
      // block: tiles N-fastest so each A block is packed once (ViT's linear
      // layers); batched too.
      {197, 768, 192, 1, 0, 0, false, true, false, false, true, false, 1.0f, 0.0f},
      {200, 300, 64, 2, 0, 0, false, true, false, true, false, true, 1.0f, 0.0f},
  };
  for (const Case& c : cases) {
    check_case(c, true, rng);
    check_case(c, false, rng);
  }
}

TEST(GemmTest, BetaZeroIgnoresNaNInCAndClampKeepsNaN) {
  std::vector<float> a = {1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN(), 4.0f};  // [2, 2]
  std::vector<float> b = {1.0f, 0.0f, 0.0f, 1.0f};                                     // identity
  std::vector<float> c(4, std::numeric_limits<float>::quiet_NaN());
  GemmArgs g;
  g.m = 2;
  g.n = 2;
  g.k = 2;
  g.a = MatrixView{a.data(), 2, 1};
  g.b = MatrixView{b.data(), 2, 1};
  g.c = c.data();
  g.ldc = 2;
  g.epilogue.lo = 0.0f;
  g.epilogue.hi = 1.5f;
  std::vector<uint8_t> temp_bytes(opt::gemm_scratch_bytes(g, 1));
  MemoryAllocator temp(temp_bytes.data(), temp_bytes.size());
  ASSERT_EQ(opt::gemm(g, &temp, nullptr), Error::Ok);
  // torch.clamp(torch.tensor([[1., 2.], [nan, 4.]]) @ torch.eye(2), 0, 1.5)
  //   -> [[1.0, 1.5], [nan, nan]] (nan * 0 is nan)
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[1], 1.5f);
  EXPECT_TRUE(std::isnan(c[2]));
  EXPECT_TRUE(std::isnan(c[3]));
}

TEST(GemmTest, SmallerTempMeansFewerThreadsThenSmallerBlocks) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(200 * 300), b(300 * 400), c(200 * 400), ref(200 * 400);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (int i = 0; i < 200; ++i) {
    for (int j = 0; j < 400; ++j) {
      double acc = 0.0;
      for (int p = 0; p < 300; ++p) acc += static_cast<double>(a[i * 300 + p]) * b[p * 400 + j];
      ref[static_cast<size_t>(i * 400 + j)] = static_cast<float>(acc);
    }
  }
  GemmArgs g;
  g.m = 200;
  g.n = 400;
  g.k = 300;
  g.a = MatrixView{a.data(), 300, 1};
  g.b = MatrixView{b.data(), 400, 1};
  g.c = c.data();
  g.ldc = 400;
  ThreadPool* pool = testing::test_thread_pool();
  const size_t two = opt::gemm_scratch_bytes(g, 2);
  const size_t one = opt::gemm_scratch_bytes(g, 1);
  ASSERT_GT(one, 0u);
  EXPECT_GT(two, one);
  EXPECT_GE(opt::gemm_scratch_bytes(g), two);
  // The two-thread size, one thread's share, then less (smaller blocks).
  for (size_t bytes : {two, one, one / 4, size_t{1600}}) {
    SCOPED_TRACE("temp bytes " + std::to_string(bytes));
    std::vector<uint8_t> temp_bytes(bytes);
    MemoryAllocator temp(temp_bytes.data(), temp_bytes.size());
    std::fill(c.begin(), c.end(), 0.0f);
    ASSERT_EQ(opt::gemm(g, &temp, pool), Error::Ok);
    for (size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], ref[i], 1e-4) << "element " << i;
  }
  std::vector<uint8_t> tiny(1000);
  MemoryAllocator temp(tiny.data(), tiny.size());
  EXPECT_EQ(opt::gemm(g, &temp, pool), Error::MemoryAllocationFailed);
  EXPECT_EQ(opt::gemm(g, nullptr, pool), Error::MemoryAllocationFailed);
  // Both operands packed: no scratch at all.
  std::vector<float> pa_store(opt::packed_a_bytes(200, 300) / 4),
      pb_store(opt::packed_b_bytes(300, 400) / 4);
  const PackedMatrix pa = opt::pack_a(g.a, 200, 300, pa_store.data());
  const PackedMatrix pb = opt::pack_b(g.b, 300, 400, pb_store.data());
  g.packed_a = &pa;
  g.packed_b = &pb;
  EXPECT_EQ(opt::gemm_scratch_bytes(g, 2), 0u);
  std::fill(c.begin(), c.end(), 0.0f);
  ASSERT_EQ(opt::gemm(g, nullptr, pool), Error::Ok);
  for (size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], ref[i], 1e-4) << "element " << i;
}

// The double reference of micro-tile element (r, j); c0 is C before the call.
double tile_reference(const opt::internal::MicroTile& t, const std::vector<float>& a,
                      const std::vector<float>& b, float c0, int r, int j) {
  using opt::internal::kGemmMr;
  using opt::internal::kGemmNr;
  double v = 0.0;
  for (int64_t k = 0; k < t.kc; ++k) {
    v += static_cast<double>(a[static_cast<size_t>(k * kGemmMr + r)]) *
         b[static_cast<size_t>(k * kGemmNr + j)];
  }
  v *= t.alpha;
  if (!t.first) v += c0;
  if (t.first && t.beta != 0.0f) v += static_cast<double>(t.beta) * c0;
  if (t.last && t.row_bias != nullptr) v += t.row_bias[r];
  if (t.last && t.col_bias != nullptr) v += t.col_bias[j];
  if (t.last && t.clamp)
    v = std::min(std::max(v, static_cast<double>(t.lo)), static_cast<double>(t.hi));
  return v;
}

// One random micro-tile call: every element inside the tile matches the
// reference, every element outside is untouched.
void check_micro_tile(opt::internal::MicroKernelFn uk, int64_t kc, std::mt19937& rng) {
  using namespace opt::internal;
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
  };
  const std::vector<float> a = random(static_cast<size_t>(kc * kGemmMr) + 1);
  const std::vector<float> b = random(static_cast<size_t>(kc * kGemmNr) + 1);
  const std::vector<float> bias_r = random(kGemmMr), bias_c = random(kGemmNr);
  const ptrdiff_t ldc = 19;
  std::vector<float> c = random(kGemmMr * ldc);
  const std::vector<float> c0 = c;
  MicroTile t;
  t.kc = kc;
  t.a = a.data();
  t.b = b.data();
  t.c = c.data();
  t.ldc = ldc;
  t.mr = 1 + static_cast<int>(rng() % kGemmMr);
  t.nr = 1 + static_cast<int>(rng() % kGemmNr);
  t.first = rng() % 2 == 0;
  t.last = rng() % 2 == 0;
  t.alpha = rng() % 2 == 0 ? 1.0f : 1.5f;
  t.beta = static_cast<float>(rng() % 3) * 0.5f;  // 0, 0.5, 1
  t.row_bias = rng() % 2 == 0 ? bias_r.data() : nullptr;
  t.col_bias = rng() % 2 == 0 ? bias_c.data() : nullptr;
  t.clamp = rng() % 2 == 0;
  t.lo = -0.5f;
  t.hi = 0.75f;
  uk(t);
  for (int r = 0; r < kGemmMr; ++r) {
    for (int j = 0; j < ldc; ++j) {
      const size_t idx = static_cast<size_t>(r * ldc + j);
      if (r >= t.mr || j >= t.nr) {
        ASSERT_EQ(c[idx], c0[idx]) << "outside the tile at " << r << "," << j;
      } else {
        ASSERT_NEAR(c[idx], tile_reference(t, a, b, c0[idx], r, j), 1e-5)
            << "mr " << t.mr << " nr " << t.nr << " kc " << kc;
      }
    }
  }
}

// Each micro-kernel this CPU can run, called directly (gemm() uses only the
// best one), on every tile size and epilogue step.
TEST(GemmTest, MicroKernelsEveryTileSizeAndStep) {
  using namespace opt::internal;
  std::mt19937 rng(3);
  for (int iter = 0; iter < 400; ++iter) {
    const int64_t kc = iter % 7 == 0 ? 0 : 1 + rng() % 40;
    {
      SCOPED_TRACE("generic micro-kernel");
      check_micro_tile(&f32_gemm_ukernel__generic_6x16, kc, rng);
    }
    if (opt::cpu_features().avx2_fma) {
      SCOPED_TRACE("avx2 micro-kernel");
      check_micro_tile(&f32_gemm_ukernel__avx2_6x16, kc, rng);
    }
    if (opt::cpu_features().avx512f) {
      SCOPED_TRACE("avx512 micro-kernel");
      check_micro_tile(&f32_gemm_ukernel__avx512_6x16, kc, rng);
    }
#if defined(__aarch64__) && defined(__ARM_NEON)
    {
      SCOPED_TRACE("neon micro-kernel");
      check_micro_tile(&f32_gemm_ukernel__neon_6x16, kc, rng);
    }
#endif
    if (HasFatalFailure()) return;
  }
}

// pack_b and pack_a split across the pool write the same bytes as on one
// thread, for both source layouts and sizes that end in a partial panel.
TEST(GemmTest, PackBOnThePoolMatchesOneThread) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  ThreadPool* pool = testing::test_thread_pool();
  for (int64_t k : {1, 37, 1152}) {
    for (int64_t n : {1, 16, 250, 1000}) {
      std::vector<float> src(static_cast<size_t>(k * n));
      for (float& v : src) v = dist(rng);
      for (bool kn : {true, false}) {
        SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n) +
                     (kn ? " [k, n]" : " [n, k]"));
        const MatrixView b = kn ? MatrixView{src.data(), static_cast<ptrdiff_t>(n), 1}
                                : MatrixView{src.data(), 1, static_cast<ptrdiff_t>(k)};
        const size_t floats = opt::packed_b_bytes(k, n) / sizeof(float);
        std::vector<float> one(floats, -7.0f), many(floats, 7.0f);
        opt::pack_b(b, k, n, one.data());
        opt::pack_b(b, k, n, many.data(), pool);
        ASSERT_EQ(one, many);
        // The layout: element (p, j) of B lies in panel j / 16, padding is zero.
        size_t wrong = 0;
        for (int64_t j = 0; j < (n + 15) / 16 * 16; ++j) {
          for (int64_t p = 0; p < k; ++p) {
            const float want = j < n ? src[static_cast<size_t>(kn ? p * n + j : j * k + p)] : 0.0f;
            wrong += many[static_cast<size_t>((j / 16) * 16 * k + p * 16 + j % 16)] != want;
          }
        }
        EXPECT_EQ(wrong, 0u);
        const int64_t p = k - 1, j = n - 1;
        // The same source as A [n, k] (rows along k when not kn).
        const MatrixView a = kn ? MatrixView{src.data(), 1, static_cast<ptrdiff_t>(n)}
                                : MatrixView{src.data(), static_cast<ptrdiff_t>(k), 1};
        const size_t a_floats = opt::packed_a_bytes(n, k) / sizeof(float);
        std::vector<float> a_one(a_floats, -7.0f), a_many(a_floats, 7.0f);
        opt::pack_a(a, n, k, a_one.data());
        opt::pack_a(a, n, k, a_many.data(), pool);
        ASSERT_EQ(a_one, a_many);
        // Element (i, p) of A lies in row panel i / 6.
        EXPECT_EQ(a_many[static_cast<size_t>((j / 6) * 6 * k + p * 6 + j % 6)],
                  src[static_cast<size_t>(kn ? p * n + j : j * k + p)]);
      }
    }
  }
}

TEST(GemmTest, BadArgumentsAreRefused) {
  std::vector<float> a(6), b(6), c(4);
  GemmArgs g;
  g.m = 2;
  g.n = 2;
  g.k = 3;
  g.a = MatrixView{a.data(), 3, 1};
  g.b = MatrixView{b.data(), 2, 1};
  g.c = c.data();
  g.ldc = 1;  // below n
  EXPECT_EQ(opt::gemm(g, nullptr, nullptr), Error::InvalidArgument);
  g.ldc = 2;
  const PackedMatrix wrong{a.data(), 3, 3};
  g.packed_a = &wrong;
  EXPECT_EQ(opt::gemm(g, nullptr, nullptr), Error::InvalidArgument);
  g.packed_a = nullptr;
  g.m = -1;
  EXPECT_EQ(opt::gemm(g, nullptr, nullptr), Error::InvalidArgument);
  EXPECT_EQ(opt::packed_a_bytes(INT64_MAX, 2), 0u);
  EXPECT_EQ(opt::packed_b_bytes(2, INT64_MAX / 2), 0u);
}

}  // namespace
}  // namespace etr
