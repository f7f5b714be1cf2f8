// etr::bn_relu_conv_bn_relu.fused (op_conv_bn.cpp): batch norm -> relu ->
// 1x1 conv -> batch norm -> relu with the first batch norm and relu applied
// as the GEMM packs the input, against float64: each batch norm
// (y - mean) / sqrt(var + eps) * gamma + beta, then max(., 0). Shapes the
// kernel takes (DenseNet-121's 14x14 and 7x7 stages, which run the plain
// and the transposed product, odd sizes, with and without the first batch
// norm's affine tensors, out over the input), on 1 and 2 threads; the
// largest error relative to
// the output's scale is printed and must stay within 1e-5. Calls it cannot
// take are declined.
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
  int batch, c_in, c_out, h, w;
  bool affine1;  // the first batch norm has gamma and beta
  int k = 1;     // convolution kernel size (1 is what the kernel takes)
  int stride = 1;
  bool out_over_input = false;  // out is x itself (c_in == c_out): the scratch path
};

constexpr double kEps = 1e-5;
constexpr double kBound = 1e-5;

double bn_relu(double y, const BatchNorm& bn, int c, bool affine) {
  const double g = affine ? bn.gamma[c] : 1.0, b = affine ? bn.beta[c] : 0.0;
  return std::max(0.0, (y - bn.mean[c]) / std::sqrt(static_cast<double>(bn.var[c]) + kEps) * g + b);
}

// Runs the fused kernel on case s; returns the largest error relative to
// the output's scale; *status: prepare's result.
double run_case(const Case& s, ThreadPool* pool, uint32_t seed, Error* status) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> he(0.0f, std::sqrt(2.0f / s.c_in));
  std::normal_distribution<float> small(0.0f, 0.1f);
  const int plane = s.h * s.w, pad = s.k / 2;
  const int oh = (s.h + 2 * pad - s.k) / s.stride + 1, ow = (s.w + 2 * pad - s.k) / s.stride + 1;
  std::vector<float> x(static_cast<size_t>(s.batch) * s.c_in * plane),
      w(static_cast<size_t>(s.c_out) * s.c_in * s.k * s.k), b(s.c_out);
  for (float& v : x) v = unit(rng);
  for (float& v : w) v = he(rng);
  for (float& v : b) v = small(rng);
  const BatchNorm bn1 = make_bn(s.c_in, rng, 0.3f), bn2 = make_bn(s.c_out, rng, 0.3f);

  // float64 reference (1x1 cases only; the others are declined).
  std::vector<double> want(static_cast<size_t>(s.batch) * s.c_out * oh * ow);
  if (s.k == 1 && s.stride == 1) {
    std::vector<double> a(static_cast<size_t>(s.c_in) * plane);
    for (int n = 0; n < s.batch; ++n) {
      for (int c = 0; c < s.c_in; ++c) {
        for (int p = 0; p < plane; ++p) {
          a[static_cast<size_t>(c) * plane + p] =
              bn_relu(x[(static_cast<size_t>(n) * s.c_in + c) * plane + p], bn1, c, s.affine1);
        }
      }
      for (int c = 0; c < s.c_out; ++c) {
        for (int p = 0; p < plane; ++p) {
          double acc = b[c];
          for (int ci = 0; ci < s.c_in; ++ci) {
            acc += static_cast<double>(w[static_cast<size_t>(c) * s.c_in + ci]) *
                   a[static_cast<size_t>(ci) * plane + p];
          }
          want[(static_cast<size_t>(n) * s.c_out + c) * plane + p] = bn_relu(acc, bn2, c, true);
        }
      }
    }
  }

  HostTensor tx = make_tensor<float>({s.batch, s.c_in, s.h, s.w}, x);
  HostTensor tw = make_tensor<float>({s.c_out, s.c_in, s.k, s.k}, w);
  HostTensor tb = make_tensor<float>({s.c_out}, b);
  HostTensor g1 = make_tensor<float>({s.c_in}, bn1.gamma),
             be1 = make_tensor<float>({s.c_in}, bn1.beta);
  HostTensor m1 = make_tensor<float>({s.c_in}, bn1.mean),
             v1 = make_tensor<float>({s.c_in}, bn1.var);
  HostTensor g2 = make_tensor<float>({s.c_out}, bn2.gamma),
             be2 = make_tensor<float>({s.c_out}, bn2.beta);
  HostTensor m2 = make_tensor<float>({s.c_out}, bn2.mean),
             v2 = make_tensor<float>({s.c_out}, bn2.var);
  HostTensor scratch =
      zeros_tensor(ScalarType::Float, {s.batch, std::max(s.c_in, s.c_out), s.h, s.w});
  HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, oh, ow});
  KernelRunner r(test_kernel_registry(), pool);
  const std::vector<int64_t> one{1, 1}, zero{0, 0}, stride{s.stride, s.stride}, pads{pad, pad};
  std::vector<EValue*> args{r.tensor(tx),
                            s.affine1 ? r.tensor(g1) : r.none(),
                            s.affine1 ? r.tensor(be1) : r.none(),
                            r.tensor(m1),
                            r.tensor(v1),
                            r.d(0.1),
                            r.d(kEps),
                            r.tensor(tw),
                            r.tensor(tb),
                            r.int_list(stride),
                            r.int_list(pads),
                            r.int_list(one),
                            r.b(false),
                            r.int_list(zero),
                            r.i(1),
                            r.tensor(g2),
                            r.tensor(be2),
                            r.tensor(m2),
                            r.tensor(v2),
                            r.d(0.1),
                            r.d(kEps),
                            r.tensor(scratch),
                            s.out_over_input ? r.tensor(tx) : r.tensor(out)};
  uint64_t constant = 0;
  for (int i : {1, 2, 3, 4, 7, 8, 15, 16, 17, 18}) constant |= uint64_t{1} << i;
  r.set_constant_args(constant);
  *status = r.prepare("etr::bn_relu_conv_bn_relu.fused", args);
  if (*status != Error::Ok) return 0.0;
  EXPECT_STREQ(r.chosen_library(), "optimized");
  EXPECT_EQ(r.run_prepared(), Error::Ok);
  const std::vector<float> got = s.out_over_input ? tx.values<float>() : out.values<float>();
  return scaled_error(got, want);
}

TEST(BnReluConvTest, MatchesFloat64Reference) {
  const Case cases[] = {
      {1, 256, 128, 14, 14, true},          {1, 992, 128, 14, 14, true}, {1, 512, 128, 7, 7, true},
      {1, 640, 128, 7, 7, false},           {1, 40, 72, 13, 11, true},   {1, 33, 9, 5, 3, false},
      {1, 96, 96, 14, 14, true, 1, 1, true}};
  uint32_t seed = 700;
  for (const Case& s : cases) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      Error status = Error::Ok;
      const double err = run_case(s, pool, seed++, &status);
      ASSERT_EQ(status, Error::Ok);
      std::printf(
          "bn_relu_conv_bn_relu x[%d,%d,%d,%d] -> %d channels%s, %s: max error %.3g "
          "of the output's scale\n",
          s.batch, s.c_in, s.h, s.w, s.c_out, s.affine1 ? "" : " (no affine)",
          pool == nullptr ? "1 thread" : "pool", err);
      EXPECT_LE(err, kBound);
    }
  }
}

TEST(BnReluConvTest, OtherCallsAreDeclined) {
  // 16-float planes (the GEMM reads those in place), a 3x3 or strided
  // convolution, batch 2, weights too large to pack in the test's 1 MiB of
  // method memory (the input shift needs them packed).
  const Case cases[] = {{1, 64, 32, 8, 8, true},
                        {1, 1024, 128, 7, 7, true},
                        {1, 64, 32, 7, 7, true, 3},
                        {1, 64, 32, 7, 7, true, 1, 2},
                        {2, 64, 32, 7, 7, true}};
  for (const Case& s : cases) {
    Error status = Error::Ok;
    (void)run_case(s, nullptr, 800, &status);
    EXPECT_EQ(status, Error::NotSupported);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
