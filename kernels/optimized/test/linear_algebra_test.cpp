// The optimized mm / bmm / addmm / linear kernels against the portable ones
// over seeded random shapes (0, 1, remainders of the 6x16 micro-tile, K
// blocks), constant and run-time weights, 1 and 2 threads; each case also
// asserts the optimized library took the call. The per-op cases with
// PyTorch's values (kernels/test/op_mm_test.cpp, ...) run on these kernels too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

// Float sums in a different order: tolerance grows with the reduction length.
double atol_for(int64_t k) { return 2e-6 * std::sqrt(static_cast<double>(k) + 1.0); }

ThreadPool* pool_for(int variant) { return variant % 2 == 0 ? nullptr : test_thread_pool(); }

std::string dims(std::initializer_list<int64_t> v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// Runs `name` with the arguments `make_args` builds for a runner (called
// once per registry, each with fresh tensors of the same values), on the
// optimized stack (asserting it chose "optimized") and on portable.
template <typename MakeArgs>
void compare(const char* name, int variant, uint64_t constants, double atol,
             const std::string& what, MakeArgs make_args) {
  std::vector<HostTensor> opt_store, ref_store;
  KernelRunner opt_runner(test_kernel_registry(), pool_for(variant));
  KernelRunner ref_runner(portable_reference_registry(), nullptr);
  opt_runner.set_constant_args(constants);
  ASSERT_EQ(opt_runner.run(name, make_args(opt_runner, opt_store)), Error::Ok) << what;
  EXPECT_STREQ(opt_runner.chosen_library(), "optimized") << what;
  ASSERT_EQ(ref_runner.run(name, make_args(ref_runner, ref_store)), Error::Ok) << what;
  expect_tensor_close(opt_store.back(), ref_store.back(), 1e-5, atol, what);
}

TEST(OptLinearAlgebraTest, MmRandomShapes) {
  const int64_t sizes[] = {0, 1, 5, 6, 7, 16, 17, 40, 130};
  std::mt19937 rng(11);
  for (int it = 0; it < 48; ++it) {
    const int64_t m = sizes[rng() % 9], k = sizes[rng() % 9] + (it % 3 == 0 ? 300 : 0),
                  n = sizes[rng() % 9];
    const uint64_t constants = rng() % 4;  // bit 0: self, bit 1: mat2
    const uint32_t seed = rng();
    compare(
        "aten::mm.out", it, constants, atol_for(k),
        "mm " + dims({m, k, n}) + " constants " + std::to_string(constants),
        [&](KernelRunner& r, std::vector<HostTensor>& store) {
          std::mt19937 vals(seed);
          store.clear();
          store.reserve(3);
          store.push_back(random_float_tensor({int32_t(m), int32_t(k)}, vals));
          store.push_back(random_float_tensor({int32_t(k), int32_t(n)}, vals));
          store.push_back(zeros_tensor(ScalarType::Float, {int32_t(m), int32_t(n)}));
          return std::vector<EValue*>{r.tensor(store[0]), r.tensor(store[1]), r.tensor(store[2])};
        });
    if (HasFatalFailure()) return;
  }
}

TEST(OptLinearAlgebraTest, BmmRandomShapes) {
  std::mt19937 rng(12);
  for (int it = 0; it < 24; ++it) {
    const int64_t b = 1 + rng() % 4, m = rng() % 40, k = rng() % 70, n = rng() % 50;
    const uint32_t seed = rng();
    compare(
        "aten::bmm.out", it, 0, atol_for(k), "bmm " + dims({b, m, k, n}),
        [&](KernelRunner& r, std::vector<HostTensor>& store) {
          std::mt19937 vals(seed);
          store.clear();
          store.reserve(3);
          store.push_back(random_float_tensor({int32_t(b), int32_t(m), int32_t(k)}, vals));
          store.push_back(random_float_tensor({int32_t(b), int32_t(k), int32_t(n)}, vals));
          store.push_back(zeros_tensor(ScalarType::Float, {int32_t(b), int32_t(m), int32_t(n)}));
          return std::vector<EValue*>{r.tensor(store[0]), r.tensor(store[1]), r.tensor(store[2])};
        });
    if (HasFatalFailure()) return;
  }
}

TEST(OptLinearAlgebraTest, AddmmEverySelfShapeAndScalars) {
  std::mt19937 rng(13);
  const double betas[] = {1.0, 0.0, 0.5, -2.0};
  const double alphas[] = {1.0, 2.0, -0.25};
  for (int it = 0; it < 60; ++it) {
    const int64_t m = 1 + rng() % 30, k = rng() % 90, n = 1 + rng() % 40;
    const int shape = static_cast<int>(rng() % 6);  // [n], [1,n], [m,n], [m,1], [1,1], []
    std::vector<int32_t> self_sizes;
    if (shape == 0) self_sizes = {int32_t(n)};
    if (shape == 1) self_sizes = {1, int32_t(n)};
    if (shape == 2) self_sizes = {int32_t(m), int32_t(n)};
    if (shape == 3) self_sizes = {int32_t(m), 1};
    if (shape == 4) self_sizes = {1, 1};
    const double beta = betas[rng() % 4], alpha = alphas[rng() % 3];
    const uint64_t constants = (rng() % 8);  // self, mat1, mat2
    const uint32_t seed = rng();
    compare("aten::addmm.out", it, constants, atol_for(k) * 4,
            "addmm " + dims({m, k, n}) + " self shape " + std::to_string(shape) + " beta " +
                std::to_string(beta) + " alpha " + std::to_string(alpha),
            [&](KernelRunner& r, std::vector<HostTensor>& store) {
              std::mt19937 vals(seed);
              store.clear();
              store.reserve(4);
              store.push_back(random_float_tensor(self_sizes, vals));
              store.push_back(random_float_tensor({int32_t(m), int32_t(k)}, vals));
              store.push_back(random_float_tensor({int32_t(k), int32_t(n)}, vals));
              store.push_back(zeros_tensor(ScalarType::Float, {int32_t(m), int32_t(n)}));
              return std::vector<EValue*>{r.tensor(store[0]), r.tensor(store[1]),
                                          r.tensor(store[2]), r.d(beta),
                                          r.d(alpha),         r.tensor(store[3])};
            });
    if (HasFatalFailure()) return;
  }
}

TEST(OptLinearAlgebraTest, LinearRandomShapesBiasesAndConstantWeights) {
  std::mt19937 rng(14);
  for (int it = 0; it < 40; ++it) {
    const int64_t m = rng() % 20, k = rng() % 100 + (it % 5 == 0 ? 330 : 0), n = 1 + rng() % 45;
    const int rank = 1 + static_cast<int>(rng() % 3);
    const int bias_kind = static_cast<int>(rng() % 3);  // none, [n], [1]
    std::vector<int32_t> in_sizes, out_sizes;
    if (rank == 3) in_sizes = {2, int32_t(m)};
    if (rank == 2) in_sizes = {int32_t(m)};
    out_sizes = in_sizes;
    in_sizes.push_back(int32_t(k));
    out_sizes.push_back(int32_t(n));
    const uint64_t constants = (it % 2 == 0) ? 0b110 : 0;  // weight and bias
    const uint32_t seed = rng();
    compare("aten::linear.out", it, constants, atol_for(k),
            "linear in " + std::to_string(rank) + "-D m " + std::to_string(m) + " " + dims({k, n}) +
                " bias " + std::to_string(bias_kind),
            [&](KernelRunner& r, std::vector<HostTensor>& store) {
              std::mt19937 vals(seed);
              store.clear();
              store.reserve(4);
              store.push_back(random_float_tensor(in_sizes, vals));
              store.push_back(random_float_tensor({int32_t(n), int32_t(k)}, vals));
              store.push_back(random_float_tensor({bias_kind == 2 ? 1 : int32_t(n)}, vals));
              store.push_back(zeros_tensor(ScalarType::Float, out_sizes));
              EValue* bias = bias_kind == 0 ? r.none() : r.tensor(store[2]);
              return std::vector<EValue*>{r.tensor(store[0]), r.tensor(store[1]), bias,
                                          r.tensor(store[3])};
            });
    if (HasFatalFailure()) return;
  }
}

// torch.addmm(torch.full((2,), float('nan')), a, b, beta=0) ignores self:
// a = [[1, 2], [3, 4]], b = eye(2) -> [[1, 2], [3, 4]].
TEST(OptLinearAlgebraTest, AddmmBetaZeroIgnoresNaNSelf) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HostTensor self = make_tensor<float>({2}, {nan, nan});
  HostTensor a = make_tensor<float>({2, 2}, {1, 2, 3, 4});
  HostTensor b = make_tensor<float>({2, 2}, {1, 0, 0, 1});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::addmm.out",
                  {r.tensor(self), r.tensor(a), r.tensor(b), r.d(0.0), r.d(1.0), r.tensor(out)}),
            Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "optimized");
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 4}));
}

// Inputs are read at every run (never cached), constant weights packed once:
// the same prepared call with new input values gives the new product.
// torch.nn.functional.linear(x, w, bias) with w = [[1, 2, 3], [0, -1, 0.5]],
// bias = [0.5, -1]: x = [1, 1, 1] -> [6.5, -1.5]; x = [2, 0, -1] -> [-0.5, -1.5].
TEST(OptLinearAlgebraTest, PreparedLinearReadsNewInputs) {
  HostTensor x = make_tensor<float>({1, 3}, {1, 1, 1});
  HostTensor w = make_tensor<float>({2, 3}, {1, 2, 3, 0, -1, 0.5f});
  HostTensor bias = make_tensor<float>({2}, {0.5f, -1});
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 2});
  KernelRunner r;
  r.set_constant_args(0b110);
  ASSERT_EQ(
      r.prepare("aten::linear.out", {r.tensor(x), r.tensor(w), r.tensor(bias), r.tensor(out)}),
      Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "optimized");
  EXPECT_NE(r.state(), nullptr);  // the packed weight
  ASSERT_EQ(r.run_prepared(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{6.5f, -1.5f}));
  const float next[3] = {2, 0, -1};
  std::memcpy(x.data(), next, sizeof(next));
  ASSERT_EQ(r.run_prepared(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-0.5f, -1.5f}));
}

// A linear layer over one row with constant weights (a classifier head:
// the panel-packed matrix-vector product) against float64: feature counts
// off the 16-row panels, with and without a bias, 1 and 2 threads (the
// largest case is over the 2^20 multiply-adds that split it).
TEST(OptLinearAlgebraTest, OneRowLinearWithConstantWeightsMatchesFloat64) {
  std::mt19937 rng(31);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  double worst = 0.0;
  const int64_t shapes[][2] = {{1, 1}, {7, 3}, {33, 100}, {1000, 1280}, {250, 577}};
  for (int variant = 0; variant < 4; ++variant) {
    for (const auto& kn : shapes) {
      const int64_t k = kn[1], n = kn[0];
      std::vector<float> x(static_cast<size_t>(k)), w(static_cast<size_t>(n * k)),
          b(static_cast<size_t>(n));
      for (float& v : x) v = nd(rng);
      for (float& v : w) v = nd(rng) * 0.1f;
      for (float& v : b) v = nd(rng);
      const bool with_bias = variant < 2;
      std::vector<double> want(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) {
        double s = with_bias ? b[static_cast<size_t>(j)] : 0.0;
        for (int64_t p = 0; p < k; ++p) {
          s += static_cast<double>(w[static_cast<size_t>(j * k + p)]) * x[static_cast<size_t>(p)];
        }
        want[static_cast<size_t>(j)] = s;
      }
      HostTensor tx = make_tensor<float>({1, int32_t(k)}, x);
      HostTensor tw = make_tensor<float>({int32_t(n), int32_t(k)}, w);
      HostTensor tb = make_tensor<float>({int32_t(n)}, b);
      HostTensor out = zeros_tensor(ScalarType::Float, {1, int32_t(n)});
      KernelRunner r(test_kernel_registry(), pool_for(variant));
      r.set_constant_args(0b110);
      ASSERT_EQ(r.prepare("aten::linear.out", {r.tensor(tx), r.tensor(tw),
                                               with_bias ? r.tensor(tb) : r.none(), r.tensor(out)}),
                Error::Ok);
      EXPECT_STREQ(r.chosen_library(), "optimized");
      ASSERT_EQ(r.run_prepared(), Error::Ok);
      const std::vector<float> got = out.values<float>();
      for (int64_t j = 0; j < n; ++j) {
        const double err = std::abs(got[static_cast<size_t>(j)] - want[static_cast<size_t>(j)]);
        worst = std::max(worst, err);
        EXPECT_LE(err, atol_for(k) + 1e-5 * std::abs(want[static_cast<size_t>(j)]))
            << dims({k, n}) << " feature " << j << " variant " << variant;
      }
    }
  }
  std::printf("one-row linear: max |error| %.3g against float64\n", worst);
}

TEST(OptLinearAlgebraTest, DoubleAndNonDefaultLayoutsGoToPortable) {
  HostTensor a = make_tensor<double>({2, 2}, {1, 2, 3, 4});
  HostTensor b = make_tensor<double>({2, 2}, {1, 0, 0, 1});
  HostTensor out = zeros_tensor(ScalarType::Double, {2, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable");
  // A [1, 2, 2] batch in dim order (0, 2, 1): declined, portable refuses it.
  HostTensor x = make_tensor<float>({1, 2, 2}, {1, 2, 3, 4}, {0, 2, 1});
  HostTensor y = make_tensor<float>({1, 2, 2}, {1, 0, 0, 1});
  HostTensor z = zeros_tensor(ScalarType::Float, {1, 2, 2});
  KernelRunner r2;
  EXPECT_NE(r2.run("aten::bmm.out", {r2.tensor(x), r2.tensor(y), r2.tensor(z)}), Error::Ok);
}

TEST(OptLinearAlgebraTest, ShapeMismatchIsAnError) {
  HostTensor a = make_tensor<float>({2, 3}, std::vector<float>(6, 1.0f));
  HostTensor b = make_tensor<float>({2, 2}, std::vector<float>(4, 1.0f));
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::mm.out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
  EXPECT_STREQ(r.chosen_library(), "optimized");
}

}  // namespace
}  // namespace testing
}  // namespace etr
