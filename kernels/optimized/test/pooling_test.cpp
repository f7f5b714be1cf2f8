// The optimized aten::max_pool2d_with_indices.out against the portable
// kernel over seeded random windows (kernel 1-4, stride 1-3, padding,
// dilation, ceil_mode, rank 3 and 4, rows wide enough for the AVX2 path),
// with ties, -inf and NaN in the input; values and indices must be equal.
// The optimized aten::avg_pool2d.out the same way (bit-identical to the
// portable kernel), and against PyTorch's values.
#include <cmath>
#include <limits>
#include <string>

#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct PoolCase {
  std::vector<int32_t> in;  // [C, H, W] or [N, C, H, W]
  int kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil = false;
};

int extent(int in, int k, int s, int p, int d, bool ceil) {
  const int span = in + 2 * p - d * (k - 1) - 1;
  int out = (span + (ceil ? s - 1 : 0)) / s + 1;
  // The last window must start inside the input or the left padding.
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

std::string describe(const PoolCase& c, bool threads) {
  std::string s = "in[";
  for (int32_t v : c.in) s += std::to_string(v) + ",";
  char buf[160];
  std::snprintf(buf, sizeof(buf), "] k(%d,%d) s(%d,%d) p(%d,%d) d(%d,%d) ceil=%d %s", c.kh, c.kw,
                c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.ceil ? 1 : 0,
                threads ? "2 threads" : "1 thread");
  return s + buf;
}

HostTensor pool_input(const PoolCase& c, std::mt19937& rng) {
  size_t n = 1;
  for (int32_t v : c.in) n *= static_cast<size_t>(v);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {-inf, std::nanf(""), 0.5f, 0.5f, -inf};
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<float> v(n);
  for (float& x : v) {
    const int r = pick(rng);
    // Mostly distinct values, some ties, some -inf and a few NaN.
    x = r < 85 ? dist(rng) : r < 93 ? specials[2] : r < 98 ? specials[0] : specials[1];
  }
  return make_tensor<float>(c.in, v);
}

Error run_pool(KernelRunner& r, const PoolCase& c, HostTensor& x, HostTensor& out,
               HostTensor& idx) {
  return r.run(
      "aten::max_pool2d_with_indices.out",
      {r.tensor(x), r.int_list({c.kh, c.kw}), r.int_list({c.sh, c.sw}), r.int_list({c.ph, c.pw}),
       r.int_list({c.dh, c.dw}), r.b(c.ceil), r.tensor(out), r.tensor(idx)});
}

void check_pool(const PoolCase& c, ThreadPool* pool, uint32_t seed) {
  const std::string what = describe(c, pool != nullptr) + " seed " + std::to_string(seed);
  std::mt19937 rng(seed);
  HostTensor x = pool_input(c, rng);
  std::vector<int32_t> os = c.in;
  const size_t r = os.size();
  os[r - 2] = extent(c.in[r - 2], c.kh, c.sh, c.ph, c.dh, c.ceil);
  os[r - 1] = extent(c.in[r - 1], c.kw, c.sw, c.pw, c.dw, c.ceil);
  HostTensor out = zeros_tensor(ScalarType::Float, os), idx = zeros_tensor(ScalarType::Long, os);
  HostTensor rout = zeros_tensor(ScalarType::Float, os), ridx = zeros_tensor(ScalarType::Long, os);

  KernelRunner opt(test_kernel_registry(), pool);
  ASSERT_EQ(run_pool(opt, c, x, out, idx), Error::Ok) << what;
  EXPECT_STREQ(opt.chosen_library(), "optimized") << what;
  KernelRunner ref(portable_reference_registry(), nullptr);
  ASSERT_EQ(run_pool(ref, c, x, rout, ridx), Error::Ok) << what;

  ASSERT_EQ(out.shape(), rout.shape()) << what;
  const std::vector<float> a = out.values<float>(), e = rout.values<float>();
  const std::vector<int64_t> ai = idx.values<int64_t>(), ei = ridx.values<int64_t>();
  size_t bad = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const bool same = (std::isnan(a[k]) && std::isnan(e[k])) || a[k] == e[k];
    if ((!same || ai[k] != ei[k]) && ++bad <= 3) {
      ADD_FAILURE() << what << ": element " << k << " is " << a[k] << " @" << ai[k]
                    << ", reference " << e[k] << " @" << ei[k];
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

TEST(OptPoolingTest, MaxPoolMatchesPortable) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    PoolCase c;
    c.kh = pick(1, 4);
    c.kw = pick(0, 2) == 0 ? pick(1, 4) : c.kh;
    c.sh = pick(1, 3);
    c.sw = pick(0, 2) == 0 ? pick(1, 3) : c.sh;
    c.ph = pick(0, c.kh / 2);
    c.pw = pick(0, c.kw / 2);
    c.dh = pick(0, 3) == 0 ? 2 : 1;
    c.dw = pick(0, 3) == 0 ? 2 : 1;
    c.ceil = pick(0, 2) == 0;
    const int h = (c.kh - 1) * c.dh + 1 + pick(0, 12);
    const int w = (c.kw - 1) * c.dw + 1 + pick(0, 40);
    if (seed % 4 == 0) {
      c.in = std::vector<int32_t>{pick(1, 5), h, w};
    } else {
      c.in = std::vector<int32_t>{pick(1, 2), pick(1, 5), h, w};
    }
    check_pool(c, nullptr, seed);
    check_pool(c, test_thread_pool(), seed);
  }
}

TEST(OptPoolingTest, ResNetStem) {
  // ResNet's 3x3 stride-2 padding-1 pool (reduced channel count).
  PoolCase c;
  c.in = std::vector<int32_t>{1, 4, 112, 112};
  c.kh = c.kw = 3;
  c.sh = c.sw = 2;
  c.ph = c.pw = 1;
  check_pool(c, nullptr, 90);
  check_pool(c, test_thread_pool(), 91);
}

TEST(OptPoolingTest, DeclinesDouble) {
  auto x = make_tensor<double>({1, 1, 4, 4}, iota<double>(16));
  auto out = zeros_tensor(ScalarType::Double, {1, 1, 2, 2});
  auto idx = zeros_tensor(ScalarType::Long, {1, 1, 2, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::max_pool2d_with_indices.out",
                  {r.tensor(x), r.int_list({2, 2}), r.int_list({2, 2}), r.int_list({0, 0}),
                   r.int_list({1, 1}), r.b(false), r.tensor(out), r.tensor(idx)}),
            Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable");
  // PyTorch: max_pool2d_with_indices(arange(16.).view(1,1,4,4), 2, 2) -> 5, 7, 13, 15
  EXPECT_EQ(out.values<double>(), (std::vector<double>{5, 7, 13, 15}));
}

struct AvgCase {
  PoolCase w;  // dilation 1
  bool count_include_pad = true;
  int divisor = 0;  // 0: none
};

Error run_avg(KernelRunner& r, const AvgCase& c, HostTensor& x, HostTensor& out) {
  const PoolCase& w = c.w;
  return r.run("aten::avg_pool2d.out",
               {r.tensor(x), r.int_list({w.kh, w.kw}), r.int_list({w.sh, w.sw}),
                r.int_list({w.ph, w.pw}), r.b(w.ceil), r.b(c.count_include_pad),
                c.divisor != 0 ? r.i(c.divisor) : r.none(), r.tensor(out)});
}

void check_avg(const AvgCase& c, ThreadPool* pool, uint32_t seed) {
  const std::string what = describe(c.w, pool != nullptr) +
                           " include_pad=" + std::to_string(c.count_include_pad) + " divisor " +
                           std::to_string(c.divisor) + " seed " + std::to_string(seed);
  std::mt19937 rng(seed);
  size_t n = 1;
  for (int32_t v : c.w.in) n *= static_cast<size_t>(v);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  HostTensor x = make_tensor<float>(c.w.in, v);
  std::vector<int32_t> os = c.w.in;
  const size_t r = os.size();
  os[r - 2] = extent(c.w.in[r - 2], c.w.kh, c.w.sh, c.w.ph, 1, c.w.ceil);
  os[r - 1] = extent(c.w.in[r - 1], c.w.kw, c.w.sw, c.w.pw, 1, c.w.ceil);
  HostTensor out = zeros_tensor(ScalarType::Float, os), rout = zeros_tensor(ScalarType::Float, os);
  KernelRunner opt(test_kernel_registry(), pool);
  ASSERT_EQ(run_avg(opt, c, x, out), Error::Ok) << what;
  EXPECT_STREQ(opt.chosen_library(), "optimized") << what;
  KernelRunner ref(portable_reference_registry(), nullptr);
  ASSERT_EQ(run_avg(ref, c, x, rout), Error::Ok) << what;
  ASSERT_EQ(out.shape(), rout.shape()) << what;
  EXPECT_EQ(out.values<float>(), rout.values<float>()) << what;
}

TEST(OptPoolingTest, AvgPoolMatchesPortable) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed + 1000);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    AvgCase c;
    c.w.kh = pick(1, 4);
    c.w.kw = pick(0, 2) == 0 ? pick(1, 4) : c.w.kh;
    c.w.sh = pick(1, 3);
    c.w.sw = pick(0, 2) == 0 ? pick(1, 3) : c.w.sh;
    c.w.ph = pick(0, c.w.kh / 2);
    c.w.pw = pick(0, c.w.kw / 2);
    c.w.ceil = pick(0, 2) == 0;
    c.count_include_pad = pick(0, 1) == 0;
    c.divisor = pick(0, 4) == 0 ? pick(1, 9) : 0;
    const int h = c.w.kh + pick(0, 12), w = c.w.kw + pick(0, 20);
    if (seed % 4 == 0) {
      c.w.in = std::vector<int32_t>{pick(1, 5), h, w};
    } else {
      c.w.in = std::vector<int32_t>{pick(1, 2), pick(1, 40), h, w};
    }
    check_avg(c, nullptr, seed);
    check_avg(c, test_thread_pool(), seed);
  }
  // DenseNet's transition pool (2x2, stride 2), enough planes to split.
  AvgCase dense;
  dense.w.in = std::vector<int32_t>{1, 128, 56, 56};
  dense.w.kh = dense.w.kw = dense.w.sh = dense.w.sw = 2;
  check_avg(dense, test_thread_pool(), 77);
}

// PyTorch (torch 2.11): avg_pool2d(arange(16.).view(1, 1, 4, 4), 3, 2, 1, ...).
TEST(OptPoolingTest, AvgPoolMatchesTorch) {
  auto x = make_tensor<float>({1, 1, 4, 4}, iota<float>(16));
  struct Want {
    bool ceil, include_pad;
    int divisor;
    std::vector<int32_t> shape;
    std::vector<float> values;
  };
  const Want wants[] = {
      {false,
       true,
       0,
       {1, 1, 2, 2},
       {1.1111111640930176f, 2.6666667461395264f, 5.666666507720947f, 10.0f}},
      {false, false, 0, {1, 1, 2, 2}, {2.5f, 4.0f, 8.5f, 10.0f}},
      {true,
       true,
       5,
       {1, 1, 3, 3},
       {2.0f, 4.800000190734863f, 2.0f, 10.199999809265137f, 18.0f, 6.599999904632568f, 5.0f,
        8.399999618530273f, 3.0f}},
  };
  for (const Want& w : wants) {
    AvgCase c;
    c.w.in = std::vector<int32_t>{1, 1, 4, 4};
    c.w.kh = c.w.kw = 3;
    c.w.sh = c.w.sw = 2;
    c.w.ph = c.w.pw = 1;
    c.w.ceil = w.ceil;
    c.count_include_pad = w.include_pad;
    c.divisor = w.divisor;
    HostTensor out = zeros_tensor(ScalarType::Float, w.shape);
    KernelRunner r(test_kernel_registry(), test_thread_pool());
    ASSERT_EQ(run_avg(r, c, x, out), Error::Ok);
    EXPECT_STREQ(r.chosen_library(), "optimized");
    EXPECT_EQ(out.values<float>(), w.values) << w.ceil << w.include_pad << w.divisor;
  }
}

// aten::avg_pool2d.out, 2x2 stride 2 unpadded (DenseNet's transition
// layers): the optimized kernel against the portable one, bit for bit, over
// widths with and without a vector remainder (ow 1 to 9, odd input widths
// whose last column no window reads), rank 3 and 4, a divisor_override, and
// inputs with NaN, -inf and values of very different magnitudes (a sum in
// float instead of double would differ).
Error run_avg(KernelRunner& r, HostTensor& x, HostTensor& out, int64_t divisor) {
  return r.run("aten::avg_pool2d.out",
               {r.tensor(x), r.int_list({2, 2}), r.int_list({2, 2}), r.int_list({0, 0}), r.b(false),
                r.b(true), divisor == 0 ? r.none() : r.i(divisor), r.tensor(out)});
}

TEST(OptPoolingTest, AvgPool2x2MatchesPortableBitForBit) {
  const std::vector<std::vector<int32_t>> shapes = {{1, 128, 56, 56}, {2, 3, 4, 19}, {3, 9, 18},
                                                    {1, 5, 7, 2},     {1, 4, 3, 17}, {2, 2, 6, 8}};
  uint32_t seed = 5;
  for (const std::vector<int32_t>& in : shapes) {
    for (int64_t divisor : {int64_t{0}, int64_t{3}}) {
      std::mt19937 rng(seed++);
      size_t n = 1;
      for (int32_t v : in) n *= static_cast<size_t>(v);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::uniform_int_distribution<int> pick(0, 99);
      std::vector<float> v(n);
      for (float& f : v) {
        const int r = pick(rng);
        f = r < 90   ? dist(rng)
            : r < 95 ? dist(rng) * 1e8f
            : r < 98 ? -std::numeric_limits<float>::infinity()
                     : std::nanf("");
      }
      HostTensor x = make_tensor<float>(in, v);
      std::vector<int32_t> os = in;
      os[os.size() - 2] /= 2;
      os[os.size() - 1] /= 2;
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
        HostTensor out = zeros_tensor(ScalarType::Float, os);
        HostTensor ref = zeros_tensor(ScalarType::Float, os);
        KernelRunner opt(test_kernel_registry(), pool);
        ASSERT_EQ(run_avg(opt, x, out, divisor), Error::Ok);
        EXPECT_STREQ(opt.chosen_library(), "optimized");
        KernelRunner portable(portable_reference_registry(), nullptr);
        ASSERT_EQ(run_avg(portable, x, ref, divisor), Error::Ok);
        const std::vector<float> a = out.values<float>(), e = ref.values<float>();
        ASSERT_EQ(a.size(), e.size());
        size_t bad = 0;
        for (size_t k = 0; k < a.size(); ++k) {
          const bool same = (std::isnan(a[k]) && std::isnan(e[k])) || a[k] == e[k];
          if (!same && ++bad <= 3) {
            ADD_FAILURE() << "element " << k << " is " << a[k] << ", reference " << e[k];
          }
        }
        EXPECT_EQ(bad, 0u);
      }
    }
  }
  // PyTorch: avg_pool2d(arange(16.).view(1,1,4,4), 2, 2) -> 2.5, 4.5, 10.5, 12.5
  std::vector<float> iota16(16);
  for (int k = 0; k < 16; ++k) iota16[static_cast<size_t>(k)] = static_cast<float>(k);
  HostTensor x = make_tensor<float>({1, 1, 4, 4}, iota16);
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2});
  KernelRunner r(test_kernel_registry(), nullptr);
  ASSERT_EQ(run_avg(r, x, out, 0), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "optimized");
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}));
}

}  // namespace
}  // namespace testing
}  // namespace etr
