// Strided and im2col convolutions through aten::convolution.out with constant
// weights (the im2col + GEMM path of op_convolution.cpp) against a float64
// direct convolution, at the scales of real networks (post-batch-norm
// activations, He-initialised weights): the largest error over the output,
// relative to the output's scale (its largest magnitude), must stay within
// 1e-4. The shapes take the stride-2 row copy of im2col (conv_im2col_avx2.cpp:
// output rows of 8 and more pixels) and the GEMM reading the im2col tile in
// place (tiles whose rows are whole multiples of 16 floats: one M block, or
// several K blocks), on 1 and 2 threads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_math/conv_im2col.h"
#include "kernels/optimized/test/conv_reference.h"
#include "kernels/optimized/test/fused_conv_test_util.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

using Shape = ConvShape;

std::string describe(const Shape& s) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "x[%d,%d,%d,%d] w[%d,%d,%d,%d] stride %d pad %d", s.batch, s.c_in,
                s.h, s.w, s.c_out, s.c_in, s.k, s.k, s.stride, s.pad);
  return buf;
}

constexpr double kBound = 1e-4;

TEST(ConvStridedTest, Im2colConvolutionsMatchFloat64Reference) {
  const Shape shapes[] = {
      // ResNet's first layer (7x7, stride 2, 3 channels) on a smaller image:
      // 32 x 35 output pixels, a tile of 1120 (70 x 16) floats per row.
      {1, 3, 64, 70, 64, 7, 2, 3},
      // Stride-2 3x3 layers: 16x16 outputs; one K block, then three (K 1152).
      {1, 48, 32, 32, 40, 3, 2, 1},
      {1, 128, 32, 32, 64, 3, 2, 1},
      // Two M blocks over two K blocks (K 576), two images.
      {2, 64, 32, 32, 200, 3, 2, 1},
      // A stride-2 1x1 downsample; a 5x5 stride-2 layer with odd sizes
      // (rows of 19 pixels: the vector copy and its scalar tail).
      {1, 64, 32, 32, 128, 1, 2, 0},
      {1, 20, 37, 38, 24, 5, 2, 2},
      // Stride 3 (the plain strided copy) and stride 1 5x5 (memcpy rows).
      {1, 16, 40, 40, 32, 3, 3, 1},
      {1, 16, 20, 20, 32, 5, 1, 2},
  };
  uint32_t seed = 70;
  for (const Shape& s : shapes) {
    const ConvData d = make_conv_data(s, seed++);
    const std::vector<double> want = conv_reference_f64(s, d);
    const int oh = conv_out_extent(s, s.h), ow = conv_out_extent(s, s.w);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      HostTensor x = make_tensor<float>({s.batch, s.c_in, s.h, s.w}, d.x);
      HostTensor w = make_tensor<float>({s.c_out, s.c_in, s.k, s.k}, d.w);
      HostTensor b = make_tensor<float>({s.c_out}, d.b);
      HostTensor out = zeros_tensor(ScalarType::Float, {s.batch, s.c_out, oh, ow});
      KernelRunner r(test_kernel_registry(), pool);
      r.set_constant_args(0b110);
      const std::vector<int64_t> stride{s.stride, s.stride}, pad{s.pad, s.pad}, one{1, 1},
          zero{0, 0};
      ASSERT_EQ(
          r.prepare("aten::convolution.out",
                    {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(stride), r.int_list(pad),
                     r.int_list(one), r.b(false), r.int_list(zero), r.i(1), r.tensor(out)}),
          Error::Ok);
      EXPECT_STREQ(r.chosen_library(), "optimized");
      ASSERT_EQ(r.run_prepared(), Error::Ok);
      const double err = scaled_error(out.values<float>(), want);
      std::printf("aten::convolution.out %s (%s): max error %.3g of the output's scale\n",
                  describe(s).c_str(), pool == nullptr ? "1 thread" : "pool", err);
      EXPECT_LE(err, kBound) << describe(s);
    }
  }
}

// 1-D convolutions [c_in, w] -> [c_out, ow] in the shapes of wav2letter
// (output width 100: rows that are not whole 16-column panels, so im2col
// writes the GEMM's packed B layout itself, im2col_tile_packed), against a
// float64 direct convolution with the 2-D test's data and bound.
TEST(ConvStridedTest, OneDimensionalIm2colPackedMatchesFloat64Reference) {
  struct Shape1d {
    int c_in, w, c_out, k, stride, pad;
  };
  const Shape1d shapes[] = {
      {40, 200, 50, 11, 2, 5},  // the stride-2 first layer
      {96, 100, 70, 7, 1, 3},   // K 672: two K blocks; 70 rows: a 4-row M edge
      {64, 100, 100, 11, 1, 5},
      {24, 37, 20, 3, 1, 1},  // 37 columns: two full panels and a 5-wide edge
      // K 2000: 300 columns exceed the 2 MiB im2col tile, which halves to
      // 160 (whole panels, the plain im2col) and leaves 140 (packed).
      {400, 300, 20, 5, 1, 2},
  };
  uint32_t seed = 90;
  for (const Shape1d& s1 : shapes) {
    // The 2-D data maker on a 1 x w image, then the 1-D weights [c_out, c_in, k].
    const Shape s{1, s1.c_in, 1, s1.w, s1.c_out, 1, s1.stride, 0};
    ConvData d = make_conv_data(s, seed);
    std::mt19937 rng(seed++);
    std::normal_distribution<float> he(0.0f, std::sqrt(2.0f / static_cast<float>(s1.k * s1.c_in)));
    d.w.resize(static_cast<size_t>(s1.c_out) * s1.c_in * s1.k);
    for (float& v : d.w) v = he(rng);
    const int ow = (s1.w + 2 * s1.pad - s1.k) / s1.stride + 1;
    std::vector<double> want(static_cast<size_t>(s1.c_out) * ow);
    for (int co = 0; co < s1.c_out; ++co) {
      for (int x = 0; x < ow; ++x) {
        double acc = d.b[co];
        for (int ci = 0; ci < s1.c_in; ++ci) {
          for (int t = 0; t < s1.k; ++t) {
            const int xx = x * s1.stride + t - s1.pad;
            if (xx < 0 || xx >= s1.w) continue;
            acc += static_cast<double>(d.x[static_cast<size_t>(ci) * s1.w + xx]) *
                   d.w[(static_cast<size_t>(co) * s1.c_in + ci) * s1.k + t];
          }
        }
        want[static_cast<size_t>(co) * ow + x] = acc;
      }
    }
    char what[120];
    std::snprintf(what, sizeof(what), "x[1,%d,%d] w[%d,%d,%d] stride %d pad %d", s1.c_in, s1.w,
                  s1.c_out, s1.c_in, s1.k, s1.stride, s1.pad);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      HostTensor x = make_tensor<float>({1, s1.c_in, s1.w}, d.x);
      HostTensor w = make_tensor<float>({s1.c_out, s1.c_in, s1.k}, d.w);
      HostTensor b = make_tensor<float>({s1.c_out}, d.b);
      HostTensor out = zeros_tensor(ScalarType::Float, {1, s1.c_out, ow});
      KernelRunner r(test_kernel_registry(), pool);
      r.set_constant_args(0b110);
      const std::vector<int64_t> stride{s1.stride}, pad{s1.pad}, one{1}, zero{0};
      ASSERT_EQ(
          r.prepare("aten::convolution.out",
                    {r.tensor(x), r.tensor(w), r.tensor(b), r.int_list(stride), r.int_list(pad),
                     r.int_list(one), r.b(false), r.int_list(zero), r.i(1), r.tensor(out)}),
          Error::Ok);
      EXPECT_STREQ(r.chosen_library(), "optimized");
      ASSERT_EQ(r.run_prepared(), Error::Ok);
      const double err = scaled_error(out.values<float>(), want);
      std::printf("aten::convolution.out 1-D %s (%s): max error %.3g of the output's scale\n", what,
                  pool == nullptr ? "1 thread" : "pool", err);
      EXPECT_LE(err, kBound) << what;
    }
  }
}

// patch_rows (the row-major X^T of a patch layer) against im2col_tile's
// [k, n] tile read transposed: equal element for element, for a tile of
// pixels in the middle of the image and for all of them, on 1 and 2
// threads; patch_rows_supported refuses padding and dilation.
TEST(ConvStridedTest, PatchRowsAreTheTransposedIm2colTile) {
  struct Patch {
    int64_t channels, h, w, k, stride;
  };
  const Patch patches[] = {{3, 40, 58, 16, 16}, {2, 21, 30, 8, 4}, {5, 1, 90, 8, 8}};
  std::mt19937 rng(41);
  for (const Patch& p : patches) {
    opt::Im2colGeom g;
    g.channels = p.channels;
    g.h = p.h;
    g.w = p.w;
    g.kh = p.h == 1 ? 1 : p.k;
    g.kw = p.k;
    g.sh = p.h == 1 ? 1 : p.stride;
    g.sw = p.stride;
    g.oh = (g.h - g.kh) / g.sh + 1;
    g.ow = (g.w - g.kw) / g.sw + 1;
    ASSERT_TRUE(opt::patch_rows_supported(g));
    const int64_t n = g.oh * g.ow, k = g.channels * g.kh * g.kw;
    std::vector<float> in(static_cast<size_t>(g.channels * g.h * g.w));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : in) v = dist(rng);
    std::vector<float> tile(static_cast<size_t>(k * n));
    opt::im2col_tile(g, in.data(), 0, n, tile.data(), nullptr);
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), test_thread_pool()}) {
      for (const int64_t n0 : {int64_t{0}, n / 3}) {
        const int64_t nt = n0 == 0 ? n : n - n0 - 1;
        std::vector<float> rows(static_cast<size_t>(k * nt), -7.0f);
        opt::patch_rows(g, in.data(), n0, nt, rows.data(), pool);
        size_t bad = 0;
        for (int64_t j = 0; j < nt; ++j) {
          for (int64_t r = 0; r < k; ++r) {
            if (rows[j * k + r] != tile[r * n + n0 + j]) ++bad;
          }
        }
        EXPECT_EQ(bad, 0u) << "channels " << p.channels << " kernel " << p.k << " stride "
                           << p.stride << " pixels " << n0 << " + " << nt
                           << (pool == nullptr ? " 1 thread" : " 2 threads");
      }
    }
    opt::Im2colGeom padded = g;
    padded.pw = 1;
    EXPECT_FALSE(opt::patch_rows_supported(padded));
    opt::Im2colGeom dilated = g;
    dilated.dw = 2;
    EXPECT_FALSE(opt::patch_rows_supported(dilated));
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
