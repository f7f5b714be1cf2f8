// The Winograd F(4x4, 3x3) and F(2x2, 3x3) convolutions
// (kernels/cpu_math/conv_winograd.h) against a float64 direct convolution, at the scales of real
// networks (post-batch-norm activations, He-initialised weights): the largest error over the
// output, relative to the output's scale (its largest magnitude), must stay within 1e-4. A few
// shapes also run through aten::convolution.out with constant weights, which prepare routes to the
// Winograd kernel.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_math/conv_winograd.h"
#include "kernels/optimized/test/conv_reference.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct Shape {
  int batch, c_in, h, w, c_out, pad;
};

std::string describe(const Shape& s) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "x[%d,%d,%d,%d] w[%d,%d,3,3] pad %d", s.batch, s.c_in, s.h, s.w,
                s.c_out, s.c_in, s.pad);
  return buf;
}

// The general convolution shape of Winograd's: 3x3, stride 1.
ConvShape general(const Shape& s) { return {s.batch, s.c_in, s.h, s.w, s.c_out, 3, 1, s.pad}; }

int out_extent(int in, int pad) { return in + 2 * pad - 2; }

ConvData make_data(const Shape& s, uint32_t seed) { return make_conv_data(general(s), seed); }

std::vector<double> reference(const Shape& s, const ConvData& d) {
  return conv_reference_f64(general(s), d);
}

// max |got - want| / max |want| (want passed through `act`: 0 = none, 1 = relu).
double scaled_error(const std::vector<float>& got, const std::vector<double>& want, int act) {
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double r = act == 1 ? std::max(want[i], 0.0) : want[i];
    scale = std::max(scale, std::abs(r));
    const double e = std::abs(static_cast<double>(got[i]) - r);
    // An output left unwritten (NaN) fails, as std::max would drop it.
    if (std::isnan(e)) return std::numeric_limits<double>::infinity();
    err = std::max(err, e);
  }
  return scale == 0.0 ? err : err / scale;
}

constexpr double kBound = 1e-4;

// ResNet's and DenseNet's stride-1 3x3 layers (fewer channels where the
// double reference would be slow), odd sizes (partial edge tiles), other
// paddings, two images (a block's tiles span both), channel counts that
// are not multiples of the GEMM's 6-row panels, and more input channels than
// one K block of the GEMM (512).
const Shape kShapes[] = {
    {1, 64, 56, 56, 64, 1},
    {1, 128, 28, 28, 128, 1},
    {1, 128, 14, 14, 32, 1},
    {1, 96, 14, 14, 256, 1},
    {2, 32, 15, 13, 40, 1},
    {1, 24, 17, 19, 17, 0},
    {2, 20, 9, 22, 33, 2},
    {1, 256, 16, 16, 20, 1},
    {1, 600, 8, 9, 16, 1},
    // One panel of 9 to 16 tiles, which two threads split by lanes: 12 4x4
    // tiles (lanes 12 to 15 empty); 16 2x2 tiles of a 7x7 image.
    {1, 40, 10, 13, 24, 1},
    {1, 128, 7, 7, 32, 1},
};

TEST(WinogradTest, MatchesFloat64Reference) {
  ETR_REQUIRE_AVX2_KERNELS();
  ASSERT_TRUE(opt::winograd_available());
  uint32_t seed = 1;
  for (const Shape& s : kShapes) {
    const ConvData d = make_data(s, seed++);
    const std::vector<double> want = reference(s, d);
    for (int64_t tile : {4, 2}) {
      opt::WinogradGeom g;
      g.batch = s.batch;
      g.c_in = s.c_in;
      g.h = s.h;
      g.w = s.w;
      g.c_out = s.c_out;
      g.oh = out_extent(s.h, s.pad);
      g.ow = out_extent(s.w, s.pad);
      g.ph = g.pw = s.pad;
      g.tile = tile;
      const size_t bytes = opt::winograd_weight_bytes(s.c_out, s.c_in, tile);
      ASSERT_GT(bytes, 0u);
      std::vector<float> packed(bytes / sizeof(float) + 16);
      float* pk = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64 / 4;
      opt::winograd_pack_weights(d.w.data(), s.c_out, s.c_in, tile, pk);
      // One and two threads; the default block and the smallest (more
      // blocks, so work items and the channel split differ).
      for (int mode = 0; mode < 4; ++mode) {
        ThreadPool* pool = mode % 2 == 0 ? nullptr : test_thread_pool();
        const int64_t block = mode < 2 ? 0 : 16;
        const size_t threads = pool == nullptr ? 1 : pool->num_threads();
        const opt::WinogradPlan plan = opt::plan_winograd(g, threads, block);
        std::vector<uint8_t> scratch(plan.worker_bytes * static_cast<size_t>(plan.workers) + 64);
        std::vector<float> out(want.size(), std::nanf(""));
        opt::DepthwiseEpilogue e;
        ASSERT_TRUE(opt::conv3x3_winograd_avx2(g, d.x.data(), pk, d.b.data(), e, out.data(),
                                               scratch.data(), scratch.size(), pool, block));
        const double err = scaled_error(out, want, 0);
        std::printf(
            "F(%lldx%lld, 3x3) %s threads %zu block %lld: max error %.3g of the output's "
            "scale\n",
            static_cast<long long>(tile), static_cast<long long>(tile), describe(s).c_str(),
            threads, static_cast<long long>(plan.block), err);
        EXPECT_LE(err, kBound) << describe(s) << " tile " << tile << " mode " << mode;
      }
      // With a relu clamp.
      std::vector<float> out(want.size(), std::nanf(""));
      std::vector<uint8_t> scratch(opt::winograd_scratch_bytes(g, 2));
      opt::DepthwiseEpilogue relu;
      relu.lo = 0.0f;
      ASSERT_TRUE(opt::conv3x3_winograd_avx2(g, d.x.data(), pk, d.b.data(), relu, out.data(),
                                             scratch.data(), scratch.size(), test_thread_pool()));
      EXPECT_LE(scaled_error(out, want, 1), kBound) << describe(s) << " tile " << tile << " relu";
      for (float v : out) ASSERT_GE(v, 0.0f) << describe(s) << " tile " << tile << " relu";
    }
  }
}

// Too little scratch for one worker: nothing runs and the call says so.
TEST(WinogradTest, RefusesShortScratch) {
  ETR_REQUIRE_AVX2_KERNELS();
  ASSERT_TRUE(opt::winograd_available());
  opt::WinogradGeom g;
  g.batch = 1;
  g.c_in = g.c_out = 32;
  g.h = g.w = g.oh = g.ow = 16;
  g.ph = g.pw = 1;
  std::vector<float> x(32 * 16 * 16, 1.0f), out(32 * 16 * 16, 0.0f);
  std::vector<float> packed(opt::winograd_weight_bytes(32, 32, 4) / 4 + 16, 0.0f);
  std::vector<uint8_t> scratch(opt::plan_winograd(g, 1).worker_bytes / 2);
  EXPECT_FALSE(opt::conv3x3_winograd_avx2(g, x.data(), packed.data(), nullptr, {}, out.data(),
                                          scratch.data(), scratch.size(), nullptr));
  EXPECT_EQ(out[0], 0.0f);
}

HostTensor to_tensor(std::vector<int32_t> sizes, const std::vector<float>& v) {
  return make_tensor<float>(std::move(sizes), v);
}

// Through aten::convolution.out with constant weights (prepare transforms them for the Winograd
// kernel), on 1 and 2 threads, against the float64 reference.
TEST(WinogradTest, ConvolutionKernelsMatchFloat64Reference) {
  // The last two: 7x7 and 9x8 pixels, which take F(2x2, 3x3).
  const Shape shapes[] = {{1, 32, 20, 20, 48, 1},
                          {2, 40, 16, 17, 24, 1},
                          {1, 64, 16, 16, 64, 1},
                          {1, 128, 7, 7, 32, 1},
                          {1, 256, 9, 8, 64, 1}};
  uint32_t seed = 50;
  for (const Shape& s : shapes) {
    const ConvData d = make_data(s, seed++);
    const std::vector<double> want = reference(s, d);
    const int oh = out_extent(s.h, s.pad), ow = out_extent(s.w, s.pad);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      HostTensor x = to_tensor({s.batch, s.c_in, s.h, s.w}, d.x);
      HostTensor w = to_tensor({s.c_out, s.c_in, 3, 3}, d.w);
      HostTensor b = to_tensor({s.c_out}, d.b);
      HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, oh, ow});
      KernelRunner r(test_kernel_registry(), pool);
      r.set_constant_args(0b110);
      const std::vector<int64_t> one{1, 1}, pad{s.pad, s.pad}, zero{0, 0};
      ASSERT_EQ(r.prepare("aten::convolution.out",
                          {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(one), r.int_list(pad),
                           r.int_list(one), r.b(false), r.int_list(zero), r.i(1), r.tensor(out)}),
                Error::Ok);
      EXPECT_STREQ(r.chosen_library(), "optimized");
      ASSERT_EQ(r.run_prepared(), Error::Ok);
      const double err = scaled_error(out.values<float>(), want, 0);
      std::printf("aten::convolution.out %s: max error %.3g of the output's scale\n",
                  describe(s).c_str(), err);
      EXPECT_LE(err, kBound) << describe(s);
    }
  }
}

// The fused convolution -> batch norm -> relu / SiLU kernels (the batch
// norm folded into the constant weights at prepare, the activation applied
// by the Winograd output transform), against float64: conv, then
// (y - mean) / sqrt(var + eps) * gamma + beta, then the activation.
TEST(WinogradTest, FusedConvBatchNormActivationMatchesFloat64Reference) {
  const Shape s{2, 24, 14, 13, 32, 1};
  const ConvData d = make_data(s, 70);
  const std::vector<double> conv = reference(s, d);
  std::mt19937 rng(71);
  std::uniform_real_distribution<float> pos(0.5f, 1.5f), var_dist(0.5f, 2.0f);
  std::normal_distribution<float> small(0.0f, 0.1f);
  std::vector<float> gamma(32), beta(32), mean(32), var(32);
  for (int c = 0; c < 32; ++c) {
    gamma[c] = pos(rng);
    beta[c] = small(rng);
    mean[c] = small(rng);
    var[c] = var_dist(rng);
  }
  const double eps = 1e-5;
  const int plane = s.h * s.w;  // padding 1: output size = input size
  for (const char* op : {"etr::conv_bn_relu.fused", "etr::conv_bn_silu.fused"}) {
    const bool silu = std::string(op).find("silu") != std::string::npos;
    std::vector<double> want(conv.size());
    for (size_t i = 0; i < conv.size(); ++i) {
      const size_t c = i / plane % 32;
      const double z =
          (conv[i] - mean[c]) / std::sqrt(static_cast<double>(var[c]) + eps) * gamma[c] + beta[c];
      want[i] = silu ? z / (1.0 + std::exp(-z)) : std::max(z, 0.0);
    }
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      HostTensor x = to_tensor({s.batch, s.c_in, s.h, s.w}, d.x);
      HostTensor w = to_tensor({s.c_out, s.c_in, 3, 3}, d.w);
      HostTensor b = to_tensor({s.c_out}, d.b);
      HostTensor tg = to_tensor({32}, gamma), tb = to_tensor({32}, beta);
      HostTensor tm = to_tensor({32}, mean), tv = to_tensor({32}, var);
      HostTensor conv_out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, s.h, s.w});
      HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, s.h, s.w});
      KernelRunner r(test_kernel_registry(), pool);
      // Constant: weight, bias, gamma, beta, mean, var.
      r.set_constant_args((1u << 1) | (1u << 2) | (1u << 9) | (1u << 10) | (1u << 11) | (1u << 12));
      const std::vector<int64_t> one{1, 1}, zero{0, 0};
      ASSERT_EQ(r.prepare(op, {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(one),
                               r.int_list(one), r.int_list(one), r.b(false), r.int_list(zero),
                               r.i(1), r.tensor(tg), r.tensor(tb), r.tensor(tm), r.tensor(tv),
                               r.d(0.1), r.d(eps), r.tensor(conv_out), r.tensor(out)}),
                Error::Ok)
          << op;
      EXPECT_STREQ(r.chosen_library(), "optimized") << op;
      ASSERT_EQ(r.run_prepared(), Error::Ok) << op;
      const double err = scaled_error(out.values<float>(), want, 0);
      std::printf("%s %s: max error %.3g of the output's scale\n", op, describe(s).c_str(), err);
      EXPECT_LE(err, kBound) << op;
    }
  }
}

// Prepared for one input size, run at a smaller one (fewer images, pixels
// not a multiple of the tile): the transformed weights serve any size.
TEST(WinogradTest, SmallerSizeAtRun) {
  const Shape big{2, 24, 20, 20, 32, 1};
  const Shape small{1, 24, 13, 11, 32, 1};
  const ConvData d = make_data(small, 90);
  const std::vector<double> want = reference(small, d);
  std::vector<float> x_big(static_cast<size_t>(big.batch) * big.c_in * big.h * big.w, 0.0f);
  HostTensor x = to_tensor({big.batch, big.c_in, big.h, big.w}, x_big);
  HostTensor w = to_tensor({big.c_out, big.c_in, 3, 3}, d.w);
  HostTensor b = to_tensor({big.c_out}, d.b);
  HostTensor out = zeros_tensor(ScalarType::Float, {big.batch, big.c_out, big.h, big.w});
  KernelRunner r(test_kernel_registry(), test_thread_pool());
  r.set_constant_args(0b110);
  const std::vector<int64_t> one{1, 1}, pad{1, 1}, zero{0, 0};
  ASSERT_EQ(r.prepare("aten::convolution.out",
                      {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(one), r.int_list(pad),
                       r.int_list(one), r.b(false), r.int_list(zero), r.i(1), r.tensor(out)}),
            Error::Ok);
  const int32_t sizes[] = {small.batch, small.c_in, small.h, small.w};
  ASSERT_EQ(resize_tensor(x.tensor(), Span<const int32_t>(sizes, 4)), Error::Ok);
  float* xd = x.tensor().data_ptr<float>();
  for (size_t i = 0; i < d.x.size(); ++i) xd[i] = d.x[i];
  ASSERT_EQ(r.run_prepared(), Error::Ok);
  const std::vector<int32_t> want_shape{small.batch, small.c_out, small.h, small.w};
  ASSERT_EQ(out.shape(), want_shape);
  const double err = scaled_error(out.values<float>(), want, 0);
  std::printf("aten::convolution.out prepared %s, run %s: max error %.3g of the output's scale\n",
              describe(big).c_str(), describe(small).c_str(), err);
  EXPECT_LE(err, kBound);
}

}  // namespace
}  // namespace testing
}  // namespace etr
