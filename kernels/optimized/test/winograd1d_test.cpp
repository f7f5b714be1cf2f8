// The 1-D Winograd convolution (kernels/cpu_math/conv_winograd1d.h) against a
// float64 direct convolution, at the scales of real networks (activations
// |N(0, 1)| on half the channels and N(0, 1) on the rest, He-initialised
// weights, small biases): the largest error over the output, relative to
// the output's scale (its largest magnitude), must stay within 1e-4 for the
// transforms the convolution kernel picks. wav2letter's layers (250 x 250
// channels, 7 taps, 100 frames), short rows, rows that are not a multiple
// of the tile, other paddings, two sequences, channel counts that are not
// multiples of 6 or 16; then through aten::convolution.out on 1 and 2
// threads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_math/conv_winograd1d.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct Shape1d {
  int batch, c_in, w, c_out, k, pad;
};

std::string describe(const Shape1d& s, int tile) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "F(%d,%d) x[%d,%d,%d] w[%d,%d,%d] pad %d", tile, s.k, s.batch,
                s.c_in, s.w, s.c_out, s.c_in, s.k, s.pad);
  return buf;
}

int out_extent(const Shape1d& s) { return s.w + 2 * s.pad - s.k + 1; }

struct Data1d {
  std::vector<float> x, w, b;
};

Data1d make_data(const Shape1d& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> he(0.0f, std::sqrt(2.0f / (s.k * s.c_in)));
  std::normal_distribution<float> small(0.0f, 0.1f);
  Data1d d;
  d.x.resize(static_cast<size_t>(s.batch) * s.c_in * s.w);
  for (size_t i = 0; i < d.x.size(); ++i) {
    const float v = unit(rng);
    d.x[i] = (i / s.w) % 2 == 0 ? std::abs(v) : v;
  }
  d.w.resize(static_cast<size_t>(s.c_out) * s.c_in * s.k);
  for (float& v : d.w) v = he(rng);
  d.b.resize(static_cast<size_t>(s.c_out));
  for (float& v : d.b) v = small(rng);
  return d;
}

std::vector<double> reference(const Shape1d& s, const Data1d& d) {
  const int ow = out_extent(s);
  std::vector<double> out(static_cast<size_t>(s.batch) * s.c_out * ow);
  for (int b = 0; b < s.batch; ++b) {
    for (int co = 0; co < s.c_out; ++co) {
      for (int x = 0; x < ow; ++x) {
        double acc = d.b[co];
        for (int ci = 0; ci < s.c_in; ++ci) {
          const float* xp = d.x.data() + (static_cast<size_t>(b) * s.c_in + ci) * s.w;
          const float* wp = d.w.data() + (static_cast<size_t>(co) * s.c_in + ci) * s.k;
          for (int t = 0; t < s.k; ++t) {
            const int xx = x + t - s.pad;
            if (xx >= 0 && xx < s.w) acc += static_cast<double>(xp[xx]) * wp[t];
          }
        }
        out[(static_cast<size_t>(b) * s.c_out + co) * ow + x] = acc;
      }
    }
  }
  return out;
}

// max |got - want| / max |want| (want passed through relu when `relu`).
double scaled_error(const std::vector<float>& got, const std::vector<double>& want, bool relu) {
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double r = relu ? std::max(want[i], 0.0) : want[i];
    scale = std::max(scale, std::abs(r));
    err = std::max(err, std::abs(static_cast<double>(got[i]) - r));
  }
  return scale == 0.0 ? err : err / scale;
}

constexpr double kBound = 1e-4;

const Shape1d kShapes[] = {
    {1, 250, 100, 250, 7, 3},  // wav2letter's 7-tap layers
    {1, 40, 17, 33, 7, 3},     // a short row, 17 = 4 * 4 + 1
    {1, 37, 5, 19, 7, 3},      // shorter than the filter's span
    {2, 24, 23, 50, 7, 3},     // two sequences sharing a block
    {1, 30, 61, 22, 7, 0},     // no padding
    {1, 20, 9, 16, 7, 5},      // more padding than the filter's half
    {1, 64, 300, 40, 7, 3},    // several blocks
    {1, 250, 100, 64, 11, 5},  // wav2letter's 11-tap layer (fewer output channels)
    {1, 40, 26, 24, 11, 5},    // 11 taps over a short row
    {2, 32, 45, 20, 9, 4},     // 9 taps (runs of 7 and 2)
};

// (taps, tile) pairs the convolution kernel may pick (op_convolution.cpp).
struct Transform {
  int k, tile;
};
const Transform kTaken[] = {{7, 2},  {7, 3},  {7, 4},  {7, 5},  {7, 6}, {9, 4},
                            {11, 2}, {11, 3}, {11, 4}, {11, 5}, {11, 6}};

TEST(Winograd1dTest, MatchesFloat64Reference) {
  ETR_REQUIRE_AVX2_KERNELS();
  ASSERT_TRUE(opt::winograd1d_available());
  uint32_t seed = 1;
  for (const Shape1d& s : kShapes) {
    const Data1d d = make_data(s, seed++);
    const std::vector<double> want = reference(s, d);
    for (const Transform& t : kTaken) {
      if (t.k != s.k) continue;
      opt::Winograd1dGeom g;
      g.batch = s.batch;
      g.c_in = s.c_in;
      g.w = s.w;
      g.c_out = s.c_out;
      g.ow = out_extent(s);
      g.pad = s.pad;
      g.k = s.k;
      g.tile = t.tile;
      const size_t bytes = opt::winograd1d_weight_bytes(s.c_out, s.c_in, s.k, t.tile);
      ASSERT_GT(bytes, 0u);
      std::vector<float> packed(bytes / sizeof(float) + 16);
      float* pk = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(packed.data()) + 63) &
                                           ~uintptr_t{63});
      opt::winograd1d_pack_weights(d.w.data(), s.c_out, s.c_in, s.k, t.tile, pk);
      for (int threads : {1, 2}) {
        ThreadPool* pool = threads == 1 ? nullptr : test_thread_pool();
        std::vector<uint8_t> scratch(opt::winograd1d_scratch_bytes(g, threads));
        ASSERT_FALSE(scratch.empty());
        for (bool relu : {false, true}) {
          std::vector<float> out(want.size(), -7.0f);
          opt::DepthwiseEpilogue e;
          if (relu) e.lo = 0.0f;
          ASSERT_TRUE(opt::conv1d_winograd_avx2(g, d.x.data(), pk, d.b.data(), e, out.data(),
                                                scratch.data(), scratch.size(), pool));
          const double err = scaled_error(out, want, relu);
          std::printf("%s, %d thread(s)%s: max error %.3g of the output's scale\n",
                      describe(s, t.tile).c_str(), threads, relu ? ", relu" : "", err);
          EXPECT_LE(err, kBound) << describe(s, t.tile);
        }
        // Channels last ([batch, ow, c_out]): the same values, transposed.
        opt::Winograd1dGeom gl = g;
        gl.out_channels_last = true;
        std::vector<float> out_cl(want.size(), -7.0f);
        ASSERT_TRUE(opt::conv1d_winograd_avx2(gl, d.x.data(), pk, d.b.data(), {}, out_cl.data(),
                                              scratch.data(), scratch.size(), pool));
        std::vector<float> back(want.size());
        const size_t ow = static_cast<size_t>(g.ow), co_n = static_cast<size_t>(s.c_out);
        for (size_t b = 0; b < static_cast<size_t>(s.batch); ++b) {
          for (size_t x = 0; x < ow; ++x) {
            for (size_t co = 0; co < co_n; ++co) {
              back[(b * co_n + co) * ow + x] = out_cl[(b * ow + x) * co_n + co];
            }
          }
        }
        const double err_cl = scaled_error(back, want, false);
        std::printf("%s, %d thread(s), channels last: max error %.3g of the output's scale\n",
                    describe(s, t.tile).c_str(), threads, err_cl);
        EXPECT_LE(err_cl, kBound) << describe(s, t.tile) << ", channels last";
      }
    }
  }
}

// Scratch for less than one worker: refused, nothing written.
TEST(Winograd1dTest, RefusesShortScratch) {
  ETR_REQUIRE_AVX2_KERNELS();
  opt::Winograd1dGeom g;
  g.batch = 1;
  g.c_in = 32;
  g.w = 40;
  g.c_out = 32;
  g.ow = 40;
  g.pad = 3;
  g.k = 7;
  g.tile = 4;
  std::vector<float> x(32 * 40, 1.0f), out(32 * 40, -1.0f);
  std::vector<float> packed(opt::winograd1d_weight_bytes(32, 32, 7, 4) / 4 + 16, 0.0f);
  std::vector<uint8_t> scratch(opt::winograd1d_scratch_bytes(g, 1) / 2);
  EXPECT_FALSE(opt::conv1d_winograd_avx2(g, x.data(), packed.data(), nullptr, {}, out.data(),
                                         scratch.data(), scratch.size(), nullptr));
  for (float v : out) ASSERT_EQ(v, -1.0f);
  // Unsupported transforms are refused too.
  EXPECT_EQ(opt::winograd1d_weight_bytes(32, 32, 7, 12), 0u);
  EXPECT_FALSE(opt::winograd1d_supported(13, 5));
}

HostTensor to_tensor(std::vector<int32_t> sizes, const std::vector<float>& v) {
  return make_tensor<float>(std::move(sizes), v);
}

// Through aten::convolution.out with constant weights (prepare transforms
// them for the 1-D Winograd kernel), on 1 and 2 threads.
TEST(Winograd1dTest, ConvolutionKernelMatchesFloat64Reference) {
  // Sizes whose transformed weights fit the runner's 1 MiB of method
  // memory; short rows (31 and 7 outputs); the last with too few input
  // channels for the Winograd kernel (the GEMM runs).
  const Shape1d shapes[] = {
      {1, 128, 100, 96, 7, 3}, {2, 33, 50, 27, 7, 3}, {1, 40, 57, 24, 7, 3},
      {1, 64, 100, 48, 11, 5}, {1, 48, 31, 40, 7, 3}, {1, 64, 7, 32, 7, 3},
      {1, 8, 40, 16, 7, 3},
  };
  uint32_t seed = 40;
  for (const Shape1d& s : shapes) {
    const Data1d d = make_data(s, seed++);
    const std::vector<double> want = reference(s, d);
    const int ow = out_extent(s);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      HostTensor x = to_tensor({s.batch, s.c_in, s.w}, d.x);
      HostTensor w = to_tensor({s.c_out, s.c_in, s.k}, d.w);
      HostTensor b = to_tensor({s.c_out}, d.b);
      HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, ow});
      KernelRunner r(test_kernel_registry(), pool);
      r.set_constant_args(0b110);
      const std::vector<int64_t> one{1}, pad{s.pad}, zero{0};
      ASSERT_EQ(r.prepare("aten::convolution.out",
                          {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(one), r.int_list(pad),
                           r.int_list(one), r.b(false), r.int_list(zero), r.i(1), r.tensor(out)}),
                Error::Ok);
      EXPECT_STREQ(r.chosen_library(), "optimized");
      ASSERT_EQ(r.run_prepared(), Error::Ok);
      const double err = scaled_error(out.values<float>(), want, false);
      std::printf("aten::convolution.out %s: max error %.3g of the output's scale\n",
                  describe(s, 0).c_str(), err);
      EXPECT_LE(err, kBound) << describe(s, 0);
    }
  }
}

// Prepared for one input size, run at a smaller one (fewer sequences, a
// length not a multiple of the tile): the transformed weights serve any
// length.
TEST(Winograd1dTest, SmallerSizeAtRun) {
  const Shape1d big{2, 24, 90, 40, 7, 3};
  const Shape1d small{1, 24, 37, 40, 7, 3};
  const Data1d d = make_data(small, 90);
  const std::vector<double> want = reference(small, d);
  std::vector<float> x_big(static_cast<size_t>(big.batch) * big.c_in * big.w, 0.0f);
  HostTensor x = to_tensor({big.batch, big.c_in, big.w}, x_big);
  HostTensor w = to_tensor({big.c_out, big.c_in, big.k}, d.w);
  HostTensor b = to_tensor({big.c_out}, d.b);
  HostTensor out = zeros_tensor(ScalarType::Float, {big.batch, big.c_out, out_extent(big)});
  KernelRunner r(test_kernel_registry(), test_thread_pool());
  r.set_constant_args(0b110);
  const std::vector<int64_t> one{1}, pad{3}, zero{0};
  ASSERT_EQ(r.prepare("aten::convolution.out",
                      {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(one), r.int_list(pad),
                       r.int_list(one), r.b(false), r.int_list(zero), r.i(1), r.tensor(out)}),
            Error::Ok);
  const int32_t sizes[] = {small.batch, small.c_in, small.w};
  ASSERT_EQ(resize_tensor(x.tensor(), Span<const int32_t>(sizes, 3)), Error::Ok);
  float* xd = x.tensor().data_ptr<float>();
  for (size_t i = 0; i < d.x.size(); ++i) xd[i] = d.x[i];
  ASSERT_EQ(r.run_prepared(), Error::Ok);
  const std::vector<int32_t> want_shape{small.batch, small.c_out, out_extent(small)};
  ASSERT_EQ(out.shape(), want_shape);
  const double err = scaled_error(out.values<float>(), want, false);
  std::printf("aten::convolution.out prepared %s, run %s: max error %.3g of the output's scale\n",
              describe(big, 0).c_str(), describe(small, 0).c_str(), err);
  EXPECT_LE(err, kBound);
}

}  // namespace
}  // namespace testing
}  // namespace etr
