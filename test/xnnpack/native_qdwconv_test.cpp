// The native static int8 depthwise kernel (backends/xnnpack/native_qdwconv.h)
// against a plain loop: int32 sums of (x - input zero point) * w over the
// taps inside the image plus the bias, then XNNPACK 2022's qc8 fp32
// requantization written out (scale in float, bound above by qmax - output
// zero point, round half to even, add the zero point, clamp). Shapes cover
// channel counts around the 16- and 8-channel blocks, rows not a multiple of
// the 4-pixel group, 3x3 / 5x5 / 3x5 / 2x2 windows, stride 1 and 2,
// dilation, uneven padding, zero points and bounds; the AVX-512 VNNI column
// and pixel kernels (where the CPU has them), the AVX2 path and the scalar
// loop, on 1 and 2 threads.
#include "backends/xnnpack/native_qdwconv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "extension/threadpool/pthread_pool.h"
#include "test/xnnpack/dw_reference.h"

namespace etr {
namespace {

using xnnpack::DwConvShape;

struct Case {
  size_t h, w, c;
  uint32_t kh, kw, stride, dilation, pad_top, pad_left;
  int32_t izp, ozp, qmin, qmax;
};

size_t out_extent(size_t in, uint32_t k, uint32_t stride, uint32_t dil, uint32_t pad_before,
                  uint32_t pad_after) {
  const size_t span = (k - 1) * dil + 1;
  return (in + pad_before + pad_after - span) / stride + 1;
}

std::vector<int8_t> reference(const DwConvShape& s, const Case& k, const std::vector<int8_t>& x,
                              const std::vector<int8_t>& w, const std::vector<int32_t>& b,
                              const std::vector<float>& scale) {
  std::vector<int8_t> y;
  for_each_dw_output(
      s, [&](size_t c) -> int64_t { return b.empty() ? 0 : b[c]; },
      [&](int64_t& acc, size_t xi, size_t wi) {
        acc += (static_cast<int64_t>(x[xi]) - k.izp) * w[wi];
      },
      [&](int64_t acc, size_t c) {
        float f = static_cast<float>(static_cast<int32_t>(acc)) * scale[c];
        const float hi = static_cast<float>(k.qmax - k.ozp);
        if (f > hi) f = hi;
        long q = std::lrint(static_cast<double>(f)) + k.ozp;  // ties to even
        q = q < k.qmin ? k.qmin : (q > k.qmax ? k.qmax : q);
        y.push_back(static_cast<int8_t>(q));
      });
  return y;
}

TEST(NativeQDwConvTest, MatchesInt32SumsAndXnnpackRequantization) {
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  const Case cases[] = {
      {13, 14, 32, 3, 3, 1, 1, 1, 1, -3, 4, -128, 127},   // MobileNetV2's stride-1 layers
      {14, 15, 96, 3, 3, 2, 1, 0, 0, 10, -7, -128, 127},  // stride 2, padding after only
      {11, 9, 33, 3, 3, 2, 1, 1, 1, -128, 0, -90, 127},   // 2 blocks + 1 channel, ReLU-like bound
      {7, 7, 24, 3, 3, 1, 1, 1, 1, 127, -128, -128, 20},  // 16 + 8 channels, ReLU6-like bound
      {6, 10, 7, 5, 5, 1, 1, 2, 2, 0, 3, -128, 127},      // fewer channels than a block
      {9, 12, 17, 3, 5, 1, 2, 2, 4, 5, 5, -128, 127},     // 15 taps, dilation 2
      {8, 9, 16, 2, 2, 2, 1, 0, 0, -1, 1, -128, 127},     // an even tap count
      {5, 5, 1, 1, 1, 1, 1, 0, 0, 0, 0, -10, 10},         // one tap, one channel, a clamp
      {3, 4, 40, 3, 3, 1, 1, 2, 1, 9, -9, -50, 60},       // padding wider than the image edge
      {10, 11, 144, 3, 3, 1, 1, 1, 1, -5, 2, -128, 127},  // 4 VNNI blocks + 16 channels
      {9, 9, 64, 3, 3, 2, 1, 1, 1, 100, -100, -128, 27},  // 2 VNNI blocks, stride 2
      {6, 7, 71, 5, 5, 1, 1, 2, 2, -20, 0, -128, 127},    // 25 taps, a 7-channel tail
      // The VNNI column kernel (32 to 63 channels, kernel_h <= 4): rows of
      // several 32-pixel tiles, a 4x2 window at stride 2, a 1x7 window.
      {5, 70, 48, 3, 3, 1, 1, 1, 1, 3, -2, -100, 100},
      {7, 37, 32, 4, 2, 2, 1, 2, 0, -7, 5, -128, 127},
      {6, 9, 40, 1, 7, 1, 1, 0, 3, 1, 1, -128, 127},
  };
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int> ib(-30000, 30000);
  std::uniform_real_distribution<float> uf(0.0f, 1.0f);
  size_t saturated = 0, outputs = 0;  // over all cases
  size_t column_cases = 0;
  for (const Case& k : cases) {
    DwConvShape s;
    s.batch = 2;
    s.in_h = k.h;
    s.in_w = k.w;
    s.channels = k.c;
    s.kernel_h = k.kh;
    s.kernel_w = k.kw;
    s.stride_h = s.stride_w = k.stride;
    s.dilation_h = s.dilation_w = k.dilation;
    s.pad_top = k.pad_top;
    s.pad_left = k.pad_left;
    // Padding after: the same as before, one less on the right for stride 2.
    s.out_h = out_extent(k.h, k.kh, k.stride, k.dilation, k.pad_top, k.pad_top);
    s.out_w = out_extent(k.w, k.kw, k.stride, k.dilation, k.pad_left,
                         k.pad_left > 0 && k.stride == 2 ? k.pad_left - 1 : k.pad_left);
    const uint32_t taps = k.kh * k.kw;
    std::vector<int8_t> x(s.batch * k.h * k.w * k.c), w(taps * k.c);
    for (int8_t& v : x) v = static_cast<int8_t>(i8(rng));
    for (int8_t& v : w) v = static_cast<int8_t>(i8(rng));
    const bool with_bias = k.c % 2 == 0;
    std::vector<int32_t> b(k.c);
    std::vector<float> scale(k.c);
    for (size_t c = 0; c < k.c; ++c) {
      b[c] = ib(rng);
      // Some outputs saturate, most do not.
      // (the sums' spread is about 9500 * sqrt(taps) plus the bias's 17000, if any).
      scale[c] = (0.3f + uf(rng)) * 150.0f /
                 (9500.0f * std::sqrt(static_cast<float>(taps)) + (with_bias ? 17000.0f : 0.0f));
    }
    if (!with_bias) b.clear();
    const size_t cp = xnnpack::qdw_padded_channels(k.c);
    std::vector<int16_t> w16(xnnpack::qdw_packed_elements(k.c, taps));
    std::vector<int32_t> b32(cp);
    std::vector<float> rq(cp);
    std::vector<int8_t> pad(cp, static_cast<int8_t>(k.izp));
    xnnpack::qdw_pack(w.data(), with_bias ? b.data() : nullptr, scale.data(), k.c, taps, k.izp,
                      w16.data(), b32.data(), rq.data(), pad.data());
    xnnpack::QDwConvWeights q;
    q.channels = k.c;
    q.taps = taps;
    q.w = w16.data();
    q.bias = b32.data();
    q.requant = rq.data();
    q.pad_row = pad.data();
    q.output_zero_point = k.ozp;
    q.output_qmin = k.qmin;
    q.output_qmax = k.qmax;
    std::vector<int8_t> wv(xnnpack::qdw_vnni_bytes(k.c, taps));
    std::vector<int32_t> bv(xnnpack::qdw_vnni_elements(k.c));
    std::vector<float> rv(bv.size());
    if (xnnpack::qdw_vnni_usable() && k.c >= 32) {
      xnnpack::qdw_pack_vnni(w.data(), b32.data(), rq.data(), k.c, taps, wv.data(), bv.data(),
                             rv.data());
      q.wvnni = wv.data();
      q.bias_vnni = bv.data();
      q.requant_vnni = rv.data();
    }
    std::vector<int8_t> wc(xnnpack::qdw_columns_bytes(k.c, k.kw));
    if (xnnpack::qdw_columns_usable(k.c, k.kh, k.kw, k.stride, k.dilation, k.dilation)) {
      xnnpack::qdw_pack_vnni_columns(w.data(), k.c, k.kh, k.kw, wc.data());
      q.wcol = wc.data();
      q.kernel_h = k.kh;
      q.kernel_w = k.kw;
      ++column_cases;
    }
    const std::vector<int8_t> want = reference(s, k, x, w, b, scale);
    ASSERT_EQ(want.size(), s.batch * s.out_h * s.out_w * k.c);
    for (int8_t v : want) saturated += v == k.qmin || v == k.qmax;
    outputs += want.size();
    for (xnnpack::QDwPath path : {xnnpack::QDwPath::Best, xnnpack::QDwPath::Pixels,
                                  xnnpack::QDwPath::Avx2, xnnpack::QDwPath::Scalar}) {
      for (ThreadPool* pool :
           {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
        SCOPED_TRACE(::testing::Message()
                     << k.h << "x" << k.w << "x" << k.c << " window " << k.kh << "x" << k.kw
                     << " stride " << k.stride << " path " << static_cast<int>(path) << " pool "
                     << (pool != nullptr));
        std::vector<int8_t> y(want.size(), 99);
        xnnpack::qs8_depthwise_conv_nhwc(s, x.data(), q, y.data(), pool, path);
        size_t bad = 0, first = want.size();
        for (size_t i = 0; i < y.size(); ++i) {
          if (y[i] != want[i]) {
            ++bad;
            if (first == want.size()) first = i;
          }
        }
        ASSERT_EQ(bad, 0u) << "first at " << first << ": " << int(y[first]) << " vs "
                           << int(want[first]);
      }
    }
  }
  if (xnnpack::qdw_vnni_usable()) {
    EXPECT_EQ(column_cases, 6u);  // the three above and three earlier cases
  }
  // The bounds were reached, but by a minority of the outputs.
  EXPECT_GT(saturated, outputs / 100);
  EXPECT_LT(saturated, outputs / 3);
}

}  // namespace
}  // namespace etr
