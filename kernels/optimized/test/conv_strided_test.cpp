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

#include "kernels/optimized/test/conv_reference.h"
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

// max |got - want| / max |want|.
double scaled_error(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    err = std::max(err, std::abs(static_cast<double>(got[i]) - want[i]));
  }
  return scale == 0.0 ? err : err / scale;
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

}  // namespace
}  // namespace testing
}  // namespace etr
