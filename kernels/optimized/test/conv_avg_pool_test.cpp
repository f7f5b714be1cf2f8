// etr::conv_avg_pool.fused (op_conv_avg_pool.cpp): a 1x1 convolution then a
// 2x2 stride-2 average pooling, run as the pooling first, against a float64
// reference in the calls' own order (convolution, then the mean of each 2x2
// block). Transition-layer shapes, odd sizes (the last row / column dropped
// by the pooling), batch 2, with and without bias, on 1 and 2 threads; the
// largest error relative to the output's scale is printed and must stay
// within 1e-5. Calls the kernel cannot take are declined.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "kernels/optimized/test/fused_conv_test_util.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct Case {
  int batch, c_in, c_out, h, w;
  bool bias;
};

// The call's variations that prepare must decline.
struct Variant {
  int k = 1;                   // convolution kernel size
  int conv_pad = 0;            // convolution padding
  int groups = 1;              // convolution groups
  int pool_k = 2;              // pooling window
  int pool_s = 2;              // pooling stride
  int pool_pad = 0;            // pooling padding
  bool ceil_mode = false;      // pooling ceil_mode
  bool divisor = false;        // a divisor_override of 4
  bool small_scratch = false;  // a scratch too small for the pooled input
};

constexpr double kBound = 1e-5;

// Runs the fused kernel on case s and returns the largest error relative to
// the output's scale; *status: prepare's result.
double run_case(const Case& s, const Variant& v, ThreadPool* pool, uint32_t seed, Error* status) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> he(0.0f, std::sqrt(2.0f / s.c_in));
  std::normal_distribution<float> small(0.0f, 0.1f);
  const int plane = s.h * s.w, oh = s.h / 2, ow = s.w / 2;
  const int icg = s.c_in / v.groups;
  std::vector<float> x(static_cast<size_t>(s.batch) * s.c_in * plane),
      w(static_cast<size_t>(s.c_out) * icg * v.k * v.k), b(s.c_out);
  for (float& e : x) e = unit(rng);
  for (float& e : w) e = he(rng);
  for (float& e : b) e = small(rng);

  HostTensor tx = make_tensor<float>({s.batch, s.c_in, s.h, s.w}, x);
  HostTensor tw = make_tensor<float>({s.c_out, icg, v.k, v.k}, w);
  HostTensor tb = make_tensor<float>({s.c_out}, b);
  HostTensor scratch =
      zeros_tensor(ScalarType::Float, {s.batch, s.c_out, s.h, v.small_scratch ? 1 : s.w});
  HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, oh, ow});
  KernelRunner r(test_kernel_registry(), pool);
  const std::vector<int64_t> one{1, 1}, zero{0, 0}, cpad{v.conv_pad, v.conv_pad};
  std::vector<EValue*> args{r.tensor(tx),
                            r.tensor(tw),
                            s.bias ? r.tensor(tb) : r.none(),
                            r.int_list(one),
                            r.int_list(cpad),
                            r.int_list(one),
                            r.b(false),
                            r.int_list(zero),
                            r.i(v.groups),
                            r.int_list({v.pool_k, v.pool_k}),
                            r.int_list({v.pool_s, v.pool_s}),
                            r.int_list({v.pool_pad, v.pool_pad}),
                            r.b(v.ceil_mode),
                            r.b(true),
                            v.divisor ? r.i(4) : r.none(),
                            r.tensor(scratch),
                            r.tensor(out)};
  r.set_constant_args((1u << 1) | (1u << 2));
  *status = r.prepare("etr::conv_avg_pool.fused", args);
  if (*status != Error::Ok) return 0.0;
  // float64 reference: the 1x1 convolution, then the mean of each 2x2 block. Only a
  // groups-1 1x1 call may be taken (the weights are indexed as such below).
  if (v.groups != 1 || v.k != 1) {
    ADD_FAILURE() << "a grouped or wider convolution was taken";
    return 1.0;
  }
  std::vector<double> want(static_cast<size_t>(s.batch) * s.c_out * oh * ow);
  std::vector<double> conv(plane);
  for (int n = 0; n < s.batch; ++n) {
    for (int c = 0; c < s.c_out; ++c) {
      for (int p = 0; p < plane; ++p) {
        double acc = s.bias ? b[c] : 0.0;
        for (int ci = 0; ci < s.c_in; ++ci) {
          acc += static_cast<double>(w[static_cast<size_t>(c) * s.c_in + ci]) *
                 x[(static_cast<size_t>(n) * s.c_in + ci) * plane + p];
        }
        conv[p] = acc;
      }
      for (int y = 0; y < oh; ++y) {
        for (int xo = 0; xo < ow; ++xo) {
          const int p = 2 * y * s.w + 2 * xo;
          want[((static_cast<size_t>(n) * s.c_out + c) * oh + y) * ow + xo] =
              (conv[p] + conv[p + 1] + conv[p + s.w] + conv[p + s.w + 1]) / 4.0;
        }
      }
    }
  }

  EXPECT_STREQ(r.chosen_library(), "optimized");
  EXPECT_EQ(r.run_prepared(), Error::Ok);
  const std::vector<float> got = out.values<float>();
  return scaled_error(got, want);
}

TEST(ConvAvgPoolTest, PoolFirstMatchesFloat64Reference) {
  // DenseNet-121's three transitions (the last two smaller in channels),
  // odd sizes and batch 2.
  const Case cases[] = {{1, 256, 128, 56, 56, false}, {1, 512, 256, 28, 28, false},
                        {1, 256, 128, 14, 14, true},  {1, 24, 40, 9, 7, true},
                        {2, 64, 32, 11, 12, false},   {1, 17, 5, 2, 3, true}};
  uint32_t seed = 500;
  for (const Case& s : cases) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      Error status = Error::Ok;
      const double err = run_case(s, Variant{}, pool, seed++, &status);
      ASSERT_EQ(status, Error::Ok);
      std::printf(
          "conv_avg_pool x[%d,%d,%d,%d] -> %d channels%s, %s: max error %.3g of the output's "
          "scale\n",
          s.batch, s.c_in, s.h, s.w, s.c_out, s.bias ? " + bias" : "",
          pool == nullptr ? "1 thread" : "pool", err);
      EXPECT_LE(err, kBound);
    }
  }
}

TEST(ConvAvgPoolTest, OtherCallsAreDeclined) {
  const Case s{1, 16, 8, 8, 8, true};
  Variant v[9];
  v[0].k = 3;
  v[0].conv_pad = 1;  // a 3x3 convolution
  v[1].conv_pad = 1;  // a padded 1x1 one
  v[2].groups = 2;
  v[3].pool_k = 3;
  v[4].pool_s = 1;
  v[5].pool_pad = 1;
  v[6].ceil_mode = true;
  v[7].divisor = true;
  v[8].small_scratch = true;
  for (int i = 0; i < 9; ++i) {
    Error status = Error::Ok;
    (void)run_case(s, v[i], nullptr, 600 + i, &status);
    EXPECT_EQ(status, Error::NotSupported) << "variant " << i;
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
