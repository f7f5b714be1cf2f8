// The banded expansion -> depthwise kernels (etr::conv_bn_hardtanh_dw.fused,
// etr::conv_bn_relu_dw.fused, op_conv_bn.cpp) against float64: a 1x1
// convolution, batch norm and clamp, then a depthwise convolution, batch
// norm and clamp over its output, each batch norm (y - mean) /
// sqrt(var + eps) * gamma + beta. Shapes the kernels take (stride 2, an
// expanded tensor of at least 1 MiB, odd sizes, 3x3 and 5x5, several bands
// per thread), on 1 and 2 threads; the largest error relative to the
// output's scale is printed and must stay within 1e-5. A stride-1 block is
// declined (the calls then run as two fused convolutions). Skipped where
// the CPU has no AVX2 + FMA. Also a fused pointwise expansion whose output
// lies over its input (run_fused's copy of the input).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/test/fused_conv_test_util.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct Block {
  int c_in, c_exp, h, w, k, stride;
};

double apply_bn(double y, const BatchNorm& bn, int c, double eps) {
  return (y - bn.mean[c]) / std::sqrt(static_cast<double>(bn.var[c]) + eps) * bn.gamma[c] +
         bn.beta[c];
}

HostTensor to_tensor(std::vector<int32_t> sizes, const std::vector<float>& v) {
  return make_tensor<float>(std::move(sizes), v);
}

double clamp(double v, double lo, double hi) { return std::min(std::max(v, lo), hi); }

constexpr double kEps = 1e-5;
constexpr double kBound = 1e-5;

// Runs `op` on block `s` (lo, hi: both activations' bounds; hardtanh:
// the bounds are arguments) and returns the largest error relative to the
// output's scale; *status: prepare's result.
double run_block(const char* op, const Block& s, float lo, float hi, bool hardtanh,
                 ThreadPool* pool, uint32_t seed, Error* status) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> he1(0.0f, std::sqrt(2.0f / s.c_in));
  std::normal_distribution<float> he2(0.0f, std::sqrt(2.0f / (s.k * s.k)));
  std::normal_distribution<float> small(0.0f, 0.1f);
  const int plane = s.h * s.w, pad = s.k / 2;
  const int oh = (s.h + 2 * pad - s.k) / s.stride + 1, ow = (s.w + 2 * pad - s.k) / s.stride + 1;
  std::vector<float> x(static_cast<size_t>(s.c_in) * plane),
      w1(static_cast<size_t>(s.c_exp) * s.c_in), b1(s.c_exp),
      w2(static_cast<size_t>(s.c_exp) * s.k * s.k), b2(s.c_exp);
  for (float& v : x) v = unit(rng);
  for (float& v : w1) v = he1(rng);
  for (float& v : b1) v = small(rng);
  for (float& v : w2) v = he2(rng);
  for (float& v : b2) v = small(rng);
  const BatchNorm bn1 = make_bn(s.c_exp, rng, 0.1f), bn2 = make_bn(s.c_exp, rng, 0.1f);

  // float64 reference.
  std::vector<double> e(static_cast<size_t>(s.c_exp) * plane);
  for (int c = 0; c < s.c_exp; ++c) {
    for (int p = 0; p < plane; ++p) {
      double acc = b1[c];
      for (int ci = 0; ci < s.c_in; ++ci) {
        acc += static_cast<double>(w1[static_cast<size_t>(c) * s.c_in + ci]) *
               x[static_cast<size_t>(ci) * plane + p];
      }
      e[static_cast<size_t>(c) * plane + p] = clamp(apply_bn(acc, bn1, c, kEps), lo, hi);
    }
  }
  std::vector<double> want(static_cast<size_t>(s.c_exp) * oh * ow);
  for (int c = 0; c < s.c_exp; ++c) {
    for (int y = 0; y < oh; ++y) {
      for (int xo = 0; xo < ow; ++xo) {
        double acc = b2[c];
        for (int ki = 0; ki < s.k; ++ki) {
          for (int kj = 0; kj < s.k; ++kj) {
            const int r = y * s.stride - pad + ki, col = xo * s.stride - pad + kj;
            if (r < 0 || r >= s.h || col < 0 || col >= s.w) continue;
            acc += static_cast<double>(w2[(static_cast<size_t>(c) * s.k + ki) * s.k + kj]) *
                   e[static_cast<size_t>(c) * plane + r * s.w + col];
          }
        }
        want[(static_cast<size_t>(c) * oh + y) * ow + xo] =
            clamp(apply_bn(acc, bn2, c, kEps), lo, hi);
      }
    }
  }

  HostTensor tx = to_tensor({1, s.c_in, s.h, s.w}, x);
  HostTensor tw1 = to_tensor({s.c_exp, s.c_in, 1, 1}, w1), tb1 = to_tensor({s.c_exp}, b1);
  HostTensor tw2 = to_tensor({s.c_exp, 1, s.k, s.k}, w2), tb2 = to_tensor({s.c_exp}, b2);
  HostTensor g1 = to_tensor({s.c_exp}, bn1.gamma), be1 = to_tensor({s.c_exp}, bn1.beta);
  HostTensor m1 = to_tensor({s.c_exp}, bn1.mean), v1 = to_tensor({s.c_exp}, bn1.var);
  HostTensor g2 = to_tensor({s.c_exp}, bn2.gamma), be2 = to_tensor({s.c_exp}, bn2.beta);
  HostTensor m2 = to_tensor({s.c_exp}, bn2.mean), v2 = to_tensor({s.c_exp}, bn2.var);
  HostTensor scratch = zeros_tensor(ScalarType::Float, {1, s.c_exp, s.h, s.w});
  HostTensor out = zeros_tensor(ScalarType::Float, {1, s.c_exp, oh, ow});
  KernelRunner r(test_kernel_registry(), pool);
  const std::vector<int64_t> one{1, 1}, zero{0, 0}, stride{s.stride, s.stride}, pads{pad, pad};
  std::vector<EValue*> args{r.tensor(tx),     r.tensor(tw1),   r.tensor(tb1), r.int_list(one),
                            r.int_list(zero), r.int_list(one), r.b(false),    r.int_list(zero),
                            r.i(1),           r.tensor(g1),    r.tensor(be1), r.tensor(m1),
                            r.tensor(v1),     r.d(0.1),        r.d(kEps)};
  if (hardtanh) {
    args.push_back(r.d(lo));
    args.push_back(r.d(hi));
  }
  const size_t second = args.size();
  for (EValue* v : {r.tensor(tw2), r.tensor(tb2), r.int_list(stride), r.int_list(pads),
                    r.int_list(one), r.b(false), r.int_list(zero), r.i(s.c_exp), r.tensor(g2),
                    r.tensor(be2), r.tensor(m2), r.tensor(v2), r.d(0.1), r.d(kEps)}) {
    args.push_back(v);
  }
  if (hardtanh) {
    args.push_back(r.d(lo));
    args.push_back(r.d(hi));
  }
  args.push_back(r.tensor(scratch));
  args.push_back(r.tensor(out));
  // Constant: both weights, biases and batch norms' tensors.
  uint64_t constant = (1u << 1) | (1u << 2) | (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12);
  for (size_t i : {size_t{0}, size_t{1}, size_t{8}, size_t{9}, size_t{10}, size_t{11}}) {
    constant |= uint64_t{1} << (second + i);
  }
  r.set_constant_args(constant);
  *status = r.prepare(op, args);
  if (*status != Error::Ok) return 0.0;
  EXPECT_STREQ(r.chosen_library(), "optimized") << op;
  EXPECT_EQ(r.run_prepared(), Error::Ok) << op;
  const std::vector<float> got = out.values<float>();
  return scaled_error(got, want);
}

TEST(ConvBandTest, ExpandDepthwiseMatchesFloat64Reference) {
  ETR_REQUIRE_AVX2_KERNELS();
  // 32 x 91 x 91 and 40 x 84 x 85 expanded floats: just over 1 MiB.
  const Block blocks[] = {{8, 32, 91, 91, 3, 2}, {12, 40, 84, 85, 5, 2}, {16, 96, 112, 112, 3, 2}};
  uint32_t seed = 300;
  for (const Block& s : blocks) {
    for (int variant = 0; variant < 2; ++variant) {
      const bool hardtanh = variant == 0;
      const char* op = hardtanh ? "etr::conv_bn_hardtanh_dw.fused" : "etr::conv_bn_relu_dw.fused";
      const float lo = 0.0f, hi = hardtanh ? 6.0f : INFINITY;
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
        Error status = Error::Ok;
        const double err = run_block(op, s, lo, hi, hardtanh, pool, seed++, &status);
        ASSERT_EQ(status, Error::Ok) << op;
        std::printf(
            "%s x[1,%d,%d,%d] expanded to %d, %dx%d stride %d, %s: max error %.3g of the "
            "output's scale\n",
            op, s.c_in, s.h, s.w, s.c_exp, s.k, s.k, s.stride,
            pool == nullptr ? "1 thread" : "pool", err);
        EXPECT_LE(err, kBound) << op;
      }
    }
  }
}

TEST(ConvBandTest, StrideOneIsDeclined) {
  ETR_REQUIRE_AVX2_KERNELS();
  Error status = Error::Ok;
  (void)run_block("etr::conv_bn_hardtanh_dw.fused", {8, 32, 91, 91, 3, 1}, 0.0f, 6.0f, true,
                  nullptr, 400, &status);
  EXPECT_NE(status, Error::Ok);
}

// A fused pointwise expansion (etr::conv_bn_relu.fused) whose output the
// plan put over its smaller input (the input's bytes at the start of the
// output's): the kernel reads a copy of the input and writes the output
// directly, so its own output slot conv_out stays untouched (the move path
// would compute there first). Against float64, 1 and 2 threads.
TEST(ConvBandTest, PointwiseExpansionOverItsInputMatchesFloat64Reference) {
  const int c_in = 24, c_exp = 96, h = 13, w = 11, plane = h * w;
  std::mt19937 rng(500);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(c_in) * plane), w1(static_cast<size_t>(c_exp) * c_in),
      b1(c_exp);
  for (float& v : x) v = nd(rng);
  for (float& v : w1) v = nd(rng) * 0.2f;
  for (float& v : b1) v = nd(rng) * 0.1f;
  const BatchNorm bn = make_bn(c_exp, rng, 0.1f);
  std::vector<double> want(static_cast<size_t>(c_exp) * plane);
  double scale = 0.0;
  for (int co = 0; co < c_exp; ++co) {
    for (int p = 0; p < plane; ++p) {
      double acc = b1[co];
      for (int ci = 0; ci < c_in; ++ci) {
        acc += static_cast<double>(w1[static_cast<size_t>(co) * c_in + ci]) *
               x[static_cast<size_t>(ci) * plane + p];
      }
      const double v = std::max(apply_bn(acc, bn, co, kEps), 0.0);
      want[static_cast<size_t>(co) * plane + p] = v;
      scale = std::max(scale, std::abs(v));
    }
  }
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
    HostTensor out = zeros_tensor(ScalarType::Float, {1, c_exp, h, w});
    HostTensor tx = to_tensor({1, c_in, h, w}, x);
    // The input's values moved to the start of the output's memory.
    std::copy(x.begin(), x.end(), out.tensor().data_ptr<float>());
    tx.tensor().set_data(out.tensor().mutable_data(), tx.nbytes());
    HostTensor tw = to_tensor({c_exp, c_in, 1, 1}, w1), tb = to_tensor({c_exp}, b1);
    HostTensor g = to_tensor({c_exp}, bn.gamma), be = to_tensor({c_exp}, bn.beta);
    HostTensor m = to_tensor({c_exp}, bn.mean), v = to_tensor({c_exp}, bn.var);
    HostTensor conv_out = zeros_tensor(ScalarType::Float, {1, c_exp, h, w});
    KernelRunner r(test_kernel_registry(), pool);
    r.set_temp_bytes(size_t{4} << 20);
    r.set_constant_args((1u << 1) | (1u << 2) | (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12));
    const std::vector<int64_t> one{1, 1}, zero{0, 0};
    ASSERT_EQ(r.prepare("etr::conv_bn_relu.fused",
                        {r.tensor(tx), r.tensor(tw), r.tensor(tb), r.int_list(one),
                         r.int_list(zero), r.int_list(one), r.b(false), r.int_list(zero), r.i(1),
                         r.tensor(g), r.tensor(be), r.tensor(m), r.tensor(v), r.d(0.1), r.d(kEps),
                         r.tensor(conv_out), r.tensor(out)}),
              Error::Ok);
    EXPECT_STREQ(r.chosen_library(), "optimized");
    ASSERT_EQ(r.run_prepared(), Error::Ok);
    const std::vector<float> got = out.values<float>();
    double err = 0.0;
    for (size_t i = 0; i < got.size(); ++i) err = std::max(err, std::abs(got[i] - want[i]));
    err /= scale;
    std::printf("pointwise expansion over its input (%s): max error %.3g of the output's scale\n",
                pool == nullptr ? "1 thread" : "2 threads", err);
    EXPECT_LE(err, kBound);
    for (float c : conv_out.values<float>()) ASSERT_EQ(c, 0.0f) << "conv_out was written";
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
