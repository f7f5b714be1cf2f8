// etr::cat_batch_norm_relu.fused (op_batch_norm.cpp): cat along channels ->
// batch norm -> relu in one pass, against float64: each output channel
// max((x - mean) / sqrt(var + eps) * gamma + beta, 0) of the input channel
// it comes from. DenseNet-like lists (a first block, then 32-channel
// growth), odd channel counts, batch 2, with and without gamma / beta, out
// over the input, on 1
// and 2 threads; the largest error relative to the output's scale is
// printed and must stay within 1e-6. Calls it cannot take are declined.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels/optimized/test/fused_conv_test_util.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct Case {
  int batch, h, w;
  std::vector<int> channels;  // per input
  bool affine;
  int dim = 1;
  bool ints = false;            // Int tensors (declined)
  bool out_over_input = false;  // out is the (only) input itself: the scratch path
};

constexpr double kEps = 1e-5;
constexpr double kBound = 1e-6;

double run_case(const Case& s, ThreadPool* pool, uint32_t seed, Error* status) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> unit(0.0f, 1.0f), small(0.0f, 0.3f);
  std::uniform_real_distribution<float> pos(0.5f, 1.5f), var_dist(0.5f, 2.0f);
  const int plane = s.h * s.w;
  int total = 0;
  for (int c : s.channels) total += c;
  std::vector<std::vector<float>> xs;
  std::vector<HostTensor> inputs;
  for (int c : s.channels) {
    std::vector<float> x(static_cast<size_t>(s.batch) * c * plane);
    for (float& v : x) v = unit(rng);
    xs.push_back(x);
  }
  std::vector<float> gamma(total), beta(total), mean(total), var(total);
  for (int c = 0; c < total; ++c) {
    gamma[c] = pos(rng);
    beta[c] = small(rng);
    mean[c] = small(rng);
    var[c] = var_dist(rng);
  }
  // float64 reference.
  std::vector<double> want(static_cast<size_t>(s.batch) * total * plane);
  for (int n = 0; n < s.batch; ++n) {
    int c0 = 0;
    for (size_t i = 0; i < s.channels.size(); ++i) {
      const int ci = s.channels[i];
      for (int c = 0; c < ci; ++c) {
        const int oc = c0 + c;
        const double g = s.affine ? gamma[oc] : 1.0, b = s.affine ? beta[oc] : 0.0;
        for (int p = 0; p < plane; ++p) {
          const double v = xs[i][(static_cast<size_t>(n) * ci + c) * plane + p];
          want[(static_cast<size_t>(n) * total + oc) * plane + p] = std::max(
              0.0, (v - mean[oc]) / std::sqrt(static_cast<double>(var[oc]) + kEps) * g + b);
        }
      }
      c0 += ci;
    }
  }
  for (size_t i = 0; i < s.channels.size(); ++i) {
    if (s.ints) {
      inputs.push_back(zeros_tensor(ScalarType::Int, {s.batch, s.channels[i], s.h, s.w}));
    } else {
      inputs.push_back(make_tensor<float>({s.batch, s.channels[i], s.h, s.w}, xs[i]));
    }
  }
  HostTensor tg = make_tensor<float>({total}, gamma), tb = make_tensor<float>({total}, beta);
  HostTensor tm = make_tensor<float>({total}, mean), tv = make_tensor<float>({total}, var);
  HostTensor scratch = zeros_tensor(ScalarType::Float, {s.batch, total, s.h, s.w});
  HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, total, s.h, s.w});
  KernelRunner r(test_kernel_registry(), pool);
  std::vector<HostTensor*> list;
  for (HostTensor& t : inputs) list.push_back(&t);
  std::vector<EValue*> args{r.tensor_list(list),
                            r.i(s.dim),
                            s.affine ? r.tensor(tg) : r.none(),
                            s.affine ? r.tensor(tb) : r.none(),
                            r.tensor(tm),
                            r.tensor(tv),
                            r.d(0.1),
                            r.d(kEps),
                            r.tensor(scratch),
                            s.out_over_input ? r.tensor(inputs[0]) : r.tensor(out)};
  *status = r.prepare("etr::cat_batch_norm_relu.fused", args);
  if (*status != Error::Ok) return 0.0;
  EXPECT_STREQ(r.chosen_library(), "optimized");
  EXPECT_EQ(r.run_prepared(), Error::Ok);
  const std::vector<float> got = s.out_over_input ? inputs[0].values<float>() : out.values<float>();
  return scaled_error(got, want);
}

TEST(CatBatchNormReluTest, MatchesFloat64Reference) {
  const Case cases[] = {{1, 56, 56, {64, 32, 32, 32}, true},
                        {1, 28, 28, {128, 32, 32, 32, 32, 32, 32}, true},
                        {1, 8, 8, {5, 17, 1, 9}, false},
                        {2, 4, 12, {3, 7}, true},
                        {1, 16, 16, {48}, true, 1, false, true}};
  uint32_t seed = 900;
  for (const Case& s : cases) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      Error status = Error::Ok;
      const double err = run_case(s, pool, seed++, &status);
      ASSERT_EQ(status, Error::Ok);
      std::printf(
          "cat_batch_norm_relu %zu inputs [%d, *, %d, %d]%s, %s: max error %.3g of the "
          "output's scale\n",
          s.channels.size(), s.batch, s.h, s.w, s.affine ? "" : " (no affine)",
          pool == nullptr ? "1 thread" : "pool", err);
      EXPECT_LE(err, kBound);
    }
  }
}

TEST(CatBatchNormReluTest, OtherCallsAreDeclined) {
  // Planes that are not whole lines (7x7), a cat along another dim, Int
  // (which no library registers the fused kernel for).
  const Case cases[] = {
      {1, 7, 7, {64, 32}, true}, {1, 8, 8, {16, 16}, true, 2}, {1, 8, 8, {16, 16}, true, 1, true}};
  for (const Case& s : cases) {
    Error status = Error::Ok;
    (void)run_case(s, nullptr, 950, &status);
    if (s.ints) {
      EXPECT_NE(status, Error::Ok);
    } else {
      EXPECT_EQ(status, Error::NotSupported);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
