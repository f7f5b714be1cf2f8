// The delegate's native int8 nodes (backends/xnnpack/native_nodes.cpp):
// the quantizing Convert fp32 -> qint8, the int8 image transpose, the int8
// convolutions whose windows are gathered into GEMM rows (a stem's 3x3 over
// 3 channels), NCHW -> NHWC of few channels, the
// clamp and its folding into the int8 layer before it (fuse_qs8_clamps, fusion.h). The expected
// codes come from plain loops: int32 sums of (x - input zero point)
// * w plus the bias, XNNPACK 2022's qc8 fp32 requantization written out with
// the layer's own bounds, then XNNPACK's s8 clamp (codes bounded by
// lrintf(clamp(bound / scale + zero point, -128, 127))) as a second step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "backends/xnnpack/dq_linear.h"
#include "backends/xnnpack/fusion.h"
#include "backends/xnnpack/native_nodes.h"
#include "extension/threadpool/pthread_pool.h"
#include "runtime/core/memory_allocator.h"
#include "test/xnnpack/native_node_util.h"

namespace etr {
namespace testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A constant per-channel value (filter or bias) over `data`.
template <typename T>
Value qconst(uint32_t id, Dtype t, std::vector<size_t> dims, const std::vector<T>& data,
             const std::vector<float>* scales, uint32_t channel_dim) {
  Value v = qvalue(id, t, dims, 1.0f, 0);
  v.quant = QuantKind::PerChannel;
  v.data = reinterpret_cast<const uint8_t*>(data.data());
  if (scales != nullptr) {
    v.channel_scales = scales->data();
    v.num_channel_scales = scales->size();
  }
  v.channel_dim = channel_dim;
  return v;
}

// XNNPACK's quantized clamp bound.
int32_t code_bound(float v, float scale, int32_t zp) {
  return static_cast<int32_t>(
      std::lrintf(std::fmin(std::fmax(v / scale + static_cast<float>(zp), -128.0f), 127.0f)));
}

// XNNPACK 2022's qc8 requantization of one int32 sum.
int8_t requantize(int32_t acc, float scale, int32_t zp, int32_t qmin, int32_t qmax) {
  float f = static_cast<float>(acc) * scale;
  const float hi = static_cast<float>(qmax - zp);
  if (f > hi) f = hi;
  long q = std::lrint(static_cast<double>(f)) + zp;  // ties to even
  q = q < qmin ? qmin : (q > qmax ? qmax : q);
  return static_cast<int8_t>(q);
}

Node clamp_node(uint32_t index, uint32_t x, uint32_t y, float lo, float hi) {
  Node n = make_node(NodeKind::Clamp, index, {x}, y);
  n.output_min = lo;
  n.output_max = hi;
  return n;
}

TEST(Qs8QuantizeTest, ConvertToInt8RoundsHalfToEvenAndSaturatesAsXnnpack) {
#if !(defined(__x86_64__) || defined(__i386__))
  GTEST_SKIP() << "the delegate runs XNNPACK's own conversion off x86 (its Arm kernel rounds "
                  "ties differently)";
#endif
  // scale 0.25 (1 / scale = 4 exactly), zero point -3: x * 4 is exact, so
  // x = k / 8 lands on ties. Expected: clamp(round_half_even(4x) - 3).
  const float s = 0.25f;
  const int32_t zp = -3;
  const size_t count = 16 * 5 + 7;  // whole vectors and a tail
  std::vector<float> x(count);
  for (size_t i = 0; i < count; ++i) x[i] = (static_cast<float>(i) - 40.0f) * 0.125f;
  x[3] = 1e30f;   // saturates high
  x[4] = -1e30f;  // saturates low
  x[5] = 31.5f;   // 126 - 3: inside; x[6] just past 127 after the zero point
  x[6] = 32.5f;
  x[7] = -31.375f;               // -125.5 -> -126 (even) - 3
  x[count - 1] = std::nanf("");  // NaN -> 127, in the scalar tail
  x[10] = std::nanf("");         // and in a vector
  x[count - 20] = 0.375f;        // 1.5 -> 2 (even), in a vector
  Values v = {qvalue(0, Dtype::Fp32, {1, count}, 1.0f, 0),
              qvalue(1, Dtype::QInt8, {1, count}, s, zp)};
  v[0].quant = QuantKind::None;
  const Node n = make_node(NodeKind::Convert, 0, {0}, 1);
  ASSERT_TRUE(xnnpack::is_native_node(v, n));
  ASSERT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  std::vector<int8_t> want(count);
  for (size_t i = 0; i < count; ++i) {
    double q;
    if (std::isnan(x[i])) {
      q = 127;
    } else {
      const double t = static_cast<double>(x[i]) * 4.0;
      const double fl = std::floor(t);
      q = t - fl > 0.5 || (t - fl == 0.5 && std::fmod(fl, 2.0) != 0.0) ? fl + 1 : fl;
      q += zp;
      q = q < -128 ? -128 : (q > 127 ? 127 : q);
    }
    want[i] = static_cast<int8_t>(q);
  }
  EXPECT_EQ(want[3], 127);
  EXPECT_EQ(want[4], -128);
  EXPECT_EQ(want[7], -128);  // -126 - 3 = -129, clamped
  EXPECT_EQ(want[count - 20], -1);
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
    std::vector<int8_t> y(count, 99);
    uint8_t* bufs[2] = {reinterpret_cast<uint8_t*>(x.data()), reinterpret_cast<uint8_t*>(y.data())};
    xnnpack::NativeState st;
    ASSERT_EQ(xnnpack::run_native_node(v, n, st, bufs, pool, nullptr, 0), Error::Ok);
    EXPECT_EQ(y, want);
  }
  // A zero or infinite scale is refused.
  v[1].scale = 0.0f;
  EXPECT_NE(xnnpack::check_native_node(v, n, 0), Error::Ok);
}

TEST(Qs8QuantizeTest, QuantizeThenNhwcTransposeFusesAndWritesTheTransposedCodes) {
#if !(defined(__x86_64__) || defined(__i386__))
  GTEST_SKIP() << "the delegate runs XNNPACK's own conversion off x86 (its Arm kernel rounds "
                  "ties differently)";
#endif
  // fp32 [2, C, 9, 13] -> qint8 (scale 0.25: 4x exact, zero point 5) -> [2, 9, 13, C];
  // 117 pixels per image: one block of 64 and a partial one.
  // (With one channel the transpose is a view of its input: nothing to fuse.)
  for (size_t C : {2, 3, 4, 5}) {
    const size_t N = 2, H = 9, W = 13, total = N * C * H * W;
    std::vector<float> x(total);
    for (size_t i = 0; i < total; ++i) x[i] = (static_cast<float>(i % 97) - 48.0f) * 0.375f;
    Values v = {qvalue(0, Dtype::Fp32, {N, C, H, W}, 1.0f, 0),
                qvalue(1, Dtype::QInt8, {N, C, H, W}, 0.25f, 5),
                qvalue(2, Dtype::QInt8, {N, H, W, C}, 0.25f, 5)};
    v[0].quant = QuantKind::None;
    const std::vector<Node> nodes = {make_node(NodeKind::Convert, 0, {0}, 1),
                                     transpose_node(1, 1, 2, {0, 2, 3, 1})};
    std::vector<xnnpack::NativeState> st(2);
    Arena arena;
    for (const Node& n : nodes) {
      ASSERT_TRUE(xnnpack::is_native_node(v, n));
      ASSERT_EQ(xnnpack::prepare_native_node(v, n, 0, &arena.alloc, &st[n.index]), Error::Ok);
    }
    ASSERT_EQ(xnnpack::fuse_quantize_transpose(v, nodes, {true, true}, &st), C <= 4 ? 1u : 0u);
    std::vector<int8_t> mid(total, 99), y(total, 99);
    std::vector<uint8_t*> bufs = {reinterpret_cast<uint8_t*>(x.data()),
                                  reinterpret_cast<uint8_t*>(mid.data()),
                                  reinterpret_cast<uint8_t*>(y.data())};
    for (const Node& n : nodes)
      ASSERT_EQ(xnnpack::run_native_node(v, n, st[n.index], bufs.data(), nullptr, nullptr, 0),
                Error::Ok);
    size_t wrong = 0;
    for (size_t n = 0; n < N; ++n)
      for (size_t c = 0; c < C; ++c)
        for (size_t p = 0; p < H * W; ++p) {
          // 4x is exact; ties round to even; then the zero point.
          const double q =
              std::nearbyint(static_cast<double>(x[(n * C + c) * H * W + p]) * 4.0) + 5;
          const int8_t want = static_cast<int8_t>(q < -128 ? -128 : (q > 127 ? 127 : q));
          wrong += y[(n * H * W + p) * C + c] != want;
        }
    EXPECT_EQ(wrong, 0u) << C << " channels";
  }
}

TEST(Int8TransposeTest, FewChannelImagesBecomeNhwcElementForElement) {
  // [N, C, H, W] -> [N, H, W, C] (perm 0, 2, 3, 1) for 2 to 5 channels (2, 3
  // and 4 take the unrolled loop), planes off the 64-pixel blocks.
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  for (size_t C : {2, 3, 4, 5}) {
    const size_t N = 2, H = 7, W = 23, total = N * C * H * W;
    std::vector<int8_t> x(total);
    for (size_t i = 0; i < total; ++i) x[i] = static_cast<int8_t>(i * 7 % 251);
    Values v = {qvalue(0, Dtype::QInt8, {N, C, H, W}, 0.1f, 0),
                qvalue(1, Dtype::QInt8, {N, H, W, C}, 0.1f, 0)};
    const Node t = transpose_node(0, 0, 1, {0, 2, 3, 1});
    ASSERT_TRUE(xnnpack::is_native_node(v, t));
    ASSERT_EQ(xnnpack::check_native_node(v, t, 0), Error::Ok);
    for (ThreadPool* pool :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
      std::vector<int8_t> y(total, 0);
      xnnpack::NativeState st;
      uint8_t* bufs[2] = {reinterpret_cast<uint8_t*>(x.data()),
                          reinterpret_cast<uint8_t*>(y.data())};
      ASSERT_EQ(xnnpack::run_native_node(v, t, st, bufs, pool, nullptr, 0), Error::Ok);
      size_t wrong = 0;
      for (size_t n = 0; n < N; ++n)
        for (size_t h = 0; h < H; ++h)
          for (size_t w = 0; w < W; ++w)
            for (size_t c = 0; c < C; ++c)
              wrong += y[((n * H + h) * W + w) * C + c] != x[((n * C + c) * H + h) * W + w];
      EXPECT_EQ(wrong, 0u) << C << " channels" << (pool ? ", pool" : "");
    }
  }
}

// Conv2d qint8 [1, H, W, C] x qcint8 [O, kh, kw, C] -> qint8 with explicit
// padding, against direct loops (taps outside the image skipped, XNNPACK's
// requantization).
struct GatheredCase {
  size_t h, w, c, o;
  uint32_t kh, kw, stride, pt, pr, pb, pl;
};

void check_gathered_conv(const GatheredCase& k, ThreadPool* pool) {
  const size_t oh = (k.h + k.pt + k.pb - k.kh) / k.stride + 1;
  const size_t ow = (k.w + k.pl + k.pr - k.kw) / k.stride + 1;
  const size_t win = k.kh * k.kw * k.c;
  const float xs = 0.03f, ys = 0.05f;
  const int32_t xzp = 9, yzp = -4;
  std::mt19937 rng(static_cast<unsigned>(k.h * 131 + k.c * 7 + k.kw));
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int> ib(-3000, 3000);
  std::uniform_real_distribution<float> uf(0.5f, 1.5f);
  std::vector<int8_t> x(k.h * k.w * k.c), w(k.o * win);
  std::vector<int32_t> b(k.o);
  std::vector<float> ws(k.o);
  for (int8_t& v : x) v = static_cast<int8_t>(i8(rng));
  for (int8_t& v : w) v = static_cast<int8_t>(i8(rng));
  for (size_t o = 0; o < k.o; ++o) {
    b[o] = ib(rng);
    // The sums spread about 74 * 74 * sqrt(window) (plus the bias): about 40 codes.
    ws[o] = 40.0f * ys / (xs * 5476.0f * std::sqrt(static_cast<float>(win))) * uf(rng);
  }
  Values v = {qvalue(0, Dtype::QInt8, {1, k.h, k.w, k.c}, xs, xzp),
              qconst(1, Dtype::QCInt8, {k.o, k.kh, k.kw, k.c}, w, &ws, 0),
              qconst(2, Dtype::QCInt32, {k.o}, b, nullptr, 0),
              qvalue(3, Dtype::QInt8, {1, oh, ow, k.o}, ys, yzp)};
  Node n = make_node(NodeKind::Conv2d, 0, {0, 1, 2}, 3);
  set_conv(&n, {k.pt, k.pr, k.pb, k.pl}, k.kh, k.kw, k.stride, k.stride, 1, 1,
           static_cast<uint32_t>(k.c), static_cast<uint32_t>(k.o));
  ASSERT_TRUE(xnnpack::is_native_node(v, n));
  ASSERT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
  Arena arena;
  xnnpack::NativeState st;
  ASSERT_EQ(xnnpack::prepare_native_node(v, n, 0, &arena.alloc, &st), Error::Ok);
  std::vector<int8_t> want(oh * ow * k.o);
  size_t at_bounds = 0;
  for (size_t oy = 0; oy < oh; ++oy) {
    for (size_t ox = 0; ox < ow; ++ox) {
      for (size_t o = 0; o < k.o; ++o) {
        int32_t acc = b[o];
        for (size_t ky = 0; ky < k.kh; ++ky) {
          for (size_t kx = 0; kx < k.kw; ++kx) {
            const long iy = static_cast<long>(oy * k.stride + ky) - static_cast<long>(k.pt);
            const long ix = static_cast<long>(ox * k.stride + kx) - static_cast<long>(k.pl);
            if (iy < 0 || ix < 0 || iy >= static_cast<long>(k.h) || ix >= static_cast<long>(k.w))
              continue;
            for (size_t c = 0; c < k.c; ++c)
              acc +=
                  (x[(static_cast<size_t>(iy) * k.w + static_cast<size_t>(ix)) * k.c + c] - xzp) *
                  w[((o * k.kh + ky) * k.kw + kx) * k.c + c];
          }
        }
        const int8_t q = requantize(acc, xs * ws[o] / ys, yzp, -128, 127);
        want[(oy * ow + ox) * k.o + o] = q;
        at_bounds += q == -128 || q == 127;
      }
    }
  }
  EXPECT_LT(at_bounds, want.size() / 4);
  std::vector<uint8_t> scratch(xnnpack::native_scratch_bytes(v, n));
  std::vector<int8_t> y(want.size(), 99);
  std::vector<uint8_t*> bufs = {reinterpret_cast<uint8_t*>(x.data()),
                                const_cast<uint8_t*>(v[1].data), const_cast<uint8_t*>(v[2].data),
                                reinterpret_cast<uint8_t*>(y.data())};
  ASSERT_EQ(xnnpack::run_native_node(v, n, st, bufs.data(), pool, scratch.data(), scratch.size()),
            Error::Ok);
  size_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) bad += y[i] != want[i];
  EXPECT_EQ(bad, 0u) << k.h << "x" << k.w << "x" << k.c << " window " << k.kh << "x" << k.kw;
}

TEST(Qs8GatheredConvTest, WindowsGatheredIntoGemmRowsMatchDirectLoops) {
  if (!xnnpack::dq_vnni_usable(27)) GTEST_SKIP() << "the int8 GEMM needs AVX-512 VNNI";
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  const GatheredCase cases[] = {
      {23, 29, 3, 32, 3, 3, 2, 1, 1, 1, 1},  // a stem: 27 inputs padded to 28, edges all round
      {22, 22, 3, 16, 3, 3, 2, 0, 1, 1, 0},  // padding after only (as XNNPACK's SAME at stride 2)
      {9, 70, 3, 24, 3, 3, 1, 1, 1, 1, 1},   // stride 1, rows longer than a block of 64 pixels
      {12, 10, 4, 20, 2, 2, 1, 0, 1, 1, 0},  // 16 inputs (a multiple of 4)
      {13, 11, 5, 48, 5, 3, 2, 2, 1, 2, 1},  // a 5x3 window (the general gather)
  };
  for (const GatheredCase& k : cases) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())})
      check_gathered_conv(k, pool);
  }
}

TEST(Qs8ClampTest, NativeClampBoundsTheCodesAsXnnpackQuantizesTheRange) {
  const float s = 0.05f;
  const int32_t zp = -3;
  Values v = {qvalue(0, Dtype::QInt8, {2, 3, 50}, s, zp),
              qvalue(1, Dtype::QInt8, {2, 3, 50}, s, zp)};
  // [-0.5, 1.7] -> codes -13 .. 31; ReLU6; an upper bound only; a range
  // past the int8 codes (bounds saturate at -128 and 127).
  const float ranges[][2] = {{-0.5f, 1.7f}, {0.0f, 6.0f}, {-kInf, 0.33f}, {-100.0f, 100.0f}};
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> x(300), y(300);
  for (int8_t& c : x) c = static_cast<int8_t>(i8(rng));
  for (const auto& r : ranges) {
    const Node n = clamp_node(0, 0, 1, r[0], r[1]);
    ASSERT_TRUE(xnnpack::is_native_node(v, n));
    ASSERT_EQ(xnnpack::check_native_node(v, n, 0), Error::Ok);
    const int32_t lo = code_bound(r[0], s, zp), hi = code_bound(r[1], s, zp);
    int32_t clo = 0, chi = 0;
    ASSERT_TRUE(xnnpack::qs8_clamp_codes(v, n, &clo, &chi));
    EXPECT_EQ(clo, lo);
    EXPECT_EQ(chi, hi);
    for (ThreadPool* pool :
         {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
      uint8_t* bufs[2] = {reinterpret_cast<uint8_t*>(x.data()),
                          reinterpret_cast<uint8_t*>(y.data())};
      xnnpack::NativeState st;
      ASSERT_EQ(xnnpack::run_native_node(v, n, st, bufs, pool, nullptr, 0), Error::Ok);
      for (size_t i = 0; i < x.size(); ++i) {
        const int32_t want = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
        ASSERT_EQ(y[i], want) << "element " << i << " range [" << r[0] << ", " << r[1] << "]";
      }
    }
  }
  // Codes -13 and 31 for the first range, -3 and 117 for ReLU6 at this scale.
  EXPECT_EQ(code_bound(-0.5f, s, zp), -13);
  EXPECT_EQ(code_bound(6.0f, s, zp), 117);
}

TEST(Qs8ClampTest, ClampsBetweenDifferentQuantizationsStayWithXnnpack) {
  Values v = {qvalue(0, Dtype::QInt8, {1, 8}, 0.05f, -3),
              qvalue(1, Dtype::QInt8, {1, 8}, 0.05f, 2)};
  EXPECT_FALSE(xnnpack::is_native_node(v, clamp_node(0, 0, 1, 0.0f, 6.0f)));
  Values f = {qvalue(0, Dtype::QUInt8, {1, 8}, 0.05f, 3),
              qvalue(1, Dtype::QUInt8, {1, 8}, 0.05f, 3)};
  EXPECT_FALSE(xnnpack::is_native_node(f, clamp_node(0, 0, 1, 0.0f, 6.0f)));
}

// A 3x3 depthwise convolution (stride 1, padding 1) over [1, H, W, C] and a
// clamp after it: values 0 x, 1 filter, 2 bias, 3 y, 4 the clamp's output.
struct DwGraph {
  static constexpr size_t H = 5, W = 6, C = 40;
  float xs = 0.04f, ys = 0.03f;
  int32_t xzp = 7, yzp = -9;
  std::vector<int8_t> w = std::vector<int8_t>(9 * C);
  std::vector<int32_t> b = std::vector<int32_t>(C);
  std::vector<float> ws = std::vector<float>(C);
  Values v;
  std::vector<Node> nodes;

  DwGraph(float lo, float hi, float clo, float chi) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> i8(-128, 127);
    std::uniform_int_distribution<int> ib(-3000, 3000);
    std::uniform_real_distribution<float> uf(0.5f, 1.5f);
    for (int8_t& c : w) c = static_cast<int8_t>(i8(rng));
    for (size_t c = 0; c < C; ++c) {
      b[c] = ib(rng);
      ws[c] = 0.0012f * uf(rng);
    }
    v = {qvalue(0, Dtype::QInt8, {1, H, W, C}, xs, xzp),
         qconst(1, Dtype::QCInt8, {1, 3, 3, C}, w, &ws, 3),
         qconst(2, Dtype::QCInt32, {C}, b, nullptr, 0),
         qvalue(3, Dtype::QInt8, {1, H, W, C}, ys, yzp),
         qvalue(4, Dtype::QInt8, {1, H, W, C}, ys, yzp)};
    Node n = make_node(NodeKind::DepthwiseConv2d, 0, {0, 1, 2}, 3);
    n.output_min = lo;
    n.output_max = hi;
    xnnpack::ConvParams p;
    p.padding_top = p.padding_right = p.padding_bottom = p.padding_left = 1;
    p.kernel_height = p.kernel_width = 3;
    p.subsampling_height = p.subsampling_width = 1;
    p.dilation_height = p.dilation_width = 1;
    p.group_input_channels = p.group_output_channels = 1;
    p.groups = C;
    n.set_conv(p);
    nodes = {n, clamp_node(1, 3, 4, clo, chi)};
  }

  // The convolution's codes with its own bounds, then the clamp's.
  std::vector<int8_t> reference(const std::vector<int8_t>& x, float lo, float hi, float clo,
                                float chi) const {
    const int32_t qmin = code_bound(lo, ys, yzp), qmax = code_bound(hi, ys, yzp);
    const int32_t cmin = code_bound(clo, ys, yzp), cmax = code_bound(chi, ys, yzp);
    std::vector<int8_t> y(H * W * C);
    for (size_t oy = 0; oy < H; ++oy) {
      for (size_t ox = 0; ox < W; ++ox) {
        for (size_t c = 0; c < C; ++c) {
          int32_t acc = b[c];
          for (int ky = 0; ky < 3; ++ky) {
            for (int kx = 0; kx < 3; ++kx) {
              const long iy = static_cast<long>(oy) + ky - 1, ix = static_cast<long>(ox) + kx - 1;
              if (iy < 0 || ix < 0 || iy >= static_cast<long>(H) || ix >= static_cast<long>(W))
                continue;
              acc += (x[(static_cast<size_t>(iy) * W + static_cast<size_t>(ix)) * C + c] - xzp) *
                     w[static_cast<size_t>(ky * 3 + kx) * C + c];
            }
          }
          const int8_t q = requantize(acc, xs * ws[c] / ys, yzp, qmin, qmax);
          y[(oy * W + ox) * C + c] = static_cast<int8_t>(q < cmin ? cmin : (q > cmax ? cmax : q));
        }
      }
    }
    return y;
  }
};

TEST(Qs8ClampFusionTest, ClampAfterDepthwiseIsFoldedIntoItsBoundsAndMatchesBothSteps) {
  // The layer's own range [-1, 1.2] and a clamp to [-0.6, 6] after it: the
  // codes between the larger lower and the smaller upper bound.
  const float lo = -1.0f, hi = 1.2f, clo = -0.6f, chi = 6.0f;
  DwGraph g(lo, hi, clo, chi);
  Arena arena;
  std::vector<xnnpack::NativeState> st(2);
  for (const Node& n : g.nodes) {
    ASSERT_TRUE(xnnpack::is_native_node(g.v, n)) << xnnpack::to_string(n.kind);
    ASSERT_EQ(xnnpack::check_native_node(g.v, n, 0), Error::Ok);
    ASSERT_EQ(xnnpack::prepare_native_node(g.v, n, 0, &arena.alloc, &st[n.index]), Error::Ok);
  }
  ASSERT_EQ(xnnpack::fuse_qs8_clamps(g.v, g.nodes, {true, true}, &st), 1u);
  EXPECT_EQ(st[0].write_to, 4u);
  EXPECT_TRUE(st[1].skipped);
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> x(DwGraph::H * DwGraph::W * DwGraph::C);
  for (int8_t& c : x) c = static_cast<int8_t>(i8(rng));
  const std::vector<int8_t> want = g.reference(x, lo, hi, clo, chi);
  size_t at_bounds = 0;
  const int32_t cmin = code_bound(clo, g.ys, g.yzp), qmax = code_bound(hi, g.ys, g.yzp);
  for (int8_t c : want) at_bounds += c == cmin || c == qmax;
  EXPECT_GT(at_bounds, want.size() / 20) << "both bounds are reached";
  EXPECT_LT(at_bounds, want.size() / 2);
  std::unique_ptr<PthreadPool> tp = PthreadPool::create(2);
  ASSERT_NE(tp, nullptr);
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), static_cast<ThreadPool*>(tp.get())}) {
    std::vector<int8_t> y(want.size(), 99), z(want.size(), 99);
    std::vector<uint8_t*> bufs = {
        reinterpret_cast<uint8_t*>(x.data()), const_cast<uint8_t*>(g.v[1].data),
        const_cast<uint8_t*>(g.v[2].data), reinterpret_cast<uint8_t*>(y.data()),
        reinterpret_cast<uint8_t*>(z.data())};
    for (const Node& n : g.nodes)
      ASSERT_EQ(xnnpack::run_native_node(g.v, n, st[n.index], bufs.data(), pool, nullptr, 0),
                Error::Ok);
    EXPECT_EQ(z, want);
    EXPECT_EQ(y, std::vector<int8_t>(want.size(), 99)) << "the layer writes the clamp's output";
  }
}

TEST(Qs8ClampFusionTest, ClampIsNotFoldedWhenTheLayerOutputIsReadElsewhereOrRangesAreDisjoint) {
  {
    DwGraph g(-kInf, kInf, 0.0f, 6.0f);
    g.nodes.push_back(clamp_node(2, 3, 4, -1.0f, 1.0f));  // a second reader of value 3
    g.v.push_back(qvalue(5, Dtype::QInt8, {1, DwGraph::H, DwGraph::W, DwGraph::C}, g.ys, g.yzp));
    g.nodes[2].outputs[0] = 5;
    Arena arena;
    std::vector<xnnpack::NativeState> st(3);
    for (const Node& n : g.nodes)
      ASSERT_EQ(xnnpack::prepare_native_node(g.v, n, 0, &arena.alloc, &st[n.index]), Error::Ok);
    EXPECT_EQ(xnnpack::fuse_qs8_clamps(g.v, g.nodes, {true, true, true}, &st), 0u);
    EXPECT_EQ(st[0].write_to, xnnpack::kInvalidId);
  }
  {
    // The layer's codes all lie below the clamp's range: folding would
    // need an empty range, so the clamp runs on its own.
    DwGraph g(-kInf, -1.0f, 0.0f, 6.0f);
    Arena arena;
    std::vector<xnnpack::NativeState> st(2);
    for (const Node& n : g.nodes)
      ASSERT_EQ(xnnpack::prepare_native_node(g.v, n, 0, &arena.alloc, &st[n.index]), Error::Ok);
    EXPECT_EQ(xnnpack::fuse_qs8_clamps(g.v, g.nodes, {true, true}, &st), 0u);
    EXPECT_FALSE(st[1].skipped);
    // A layer XNNPACK runs (not native) is never folded into.
    EXPECT_EQ(xnnpack::fuse_qs8_clamps(g.v, g.nodes, {false, true}, &st), 0u);
  }
}

TEST(Qs8ClampFusionTest, ClampAfterPointwiseConvolutionIsFoldedIntoTheGemmStore) {
  const size_t P = 13, CI = 24, CO = 48;  // 48 outputs: the packed 3-block store
  if (!xnnpack::dq_vnni_usable(CI)) GTEST_SKIP() << "the int8 GEMM needs AVX-512 VNNI";
  const float xs = 0.05f, ys = 0.04f;
  const int32_t xzp = -4, yzp = 6;
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int> ib(-2000, 2000);
  std::uniform_real_distribution<float> uf(0.5f, 1.5f);
  std::vector<int8_t> w(CO * CI), x(P * CI);
  std::vector<int32_t> b(CO);
  std::vector<float> ws(CO);
  for (int8_t& c : w) c = static_cast<int8_t>(i8(rng));
  for (int8_t& c : x) c = static_cast<int8_t>(i8(rng));
  for (size_t o = 0; o < CO; ++o) {
    b[o] = ib(rng);
    ws[o] = 0.0006f * uf(rng);
  }
  Values v = {qvalue(0, Dtype::QInt8, {1, 1, P, CI}, xs, xzp),
              qconst(1, Dtype::QCInt8, {CO, 1, 1, CI}, w, &ws, 0),
              qconst(2, Dtype::QCInt32, {CO}, b, nullptr, 0),
              qvalue(3, Dtype::QInt8, {1, 1, P, CO}, ys, yzp),
              qvalue(4, Dtype::QInt8, {1, 1, P, CO}, ys, yzp)};
  Node n = make_node(NodeKind::Conv2d, 0, {0, 1, 2}, 3);
  set_conv(&n, {0, 0, 0, 0}, 1, 1, 1, 1, 1, 1, static_cast<uint32_t>(CI),
           static_cast<uint32_t>(CO));
  const float clo = -0.8f, chi = 1.1f;
  const std::vector<Node> nodes = {n, clamp_node(1, 3, 4, clo, chi)};
  Arena arena;
  std::vector<xnnpack::NativeState> st(2);
  for (const Node& m : nodes) {
    ASSERT_TRUE(xnnpack::is_native_node(v, m)) << xnnpack::to_string(m.kind);
    ASSERT_EQ(xnnpack::check_native_node(v, m, 0), Error::Ok);
    ASSERT_EQ(xnnpack::prepare_native_node(v, m, 0, &arena.alloc, &st[m.index]), Error::Ok);
  }
  ASSERT_EQ(xnnpack::fuse_qs8_clamps(v, nodes, {true, true}, &st), 1u);
  const int32_t cmin = code_bound(clo, ys, yzp), cmax = code_bound(chi, ys, yzp);
  std::vector<int8_t> want(P * CO);
  size_t at_bounds = 0;
  for (size_t r = 0; r < P; ++r) {
    for (size_t o = 0; o < CO; ++o) {
      int32_t acc = b[o];
      for (size_t k = 0; k < CI; ++k) acc += (x[r * CI + k] - xzp) * w[o * CI + k];
      const int8_t q = requantize(acc, xs * ws[o] / ys, yzp, -128, 127);
      want[r * CO + o] = static_cast<int8_t>(q < cmin ? cmin : (q > cmax ? cmax : q));
      at_bounds += want[r * CO + o] == cmin || want[r * CO + o] == cmax;
    }
  }
  EXPECT_GT(at_bounds, want.size() / 20);
  EXPECT_LT(at_bounds, want.size() / 2);
  std::vector<int8_t> y(want.size(), 99), z(want.size(), 99);
  std::vector<uint8_t*> bufs = {reinterpret_cast<uint8_t*>(x.data()),
                                const_cast<uint8_t*>(v[1].data), const_cast<uint8_t*>(v[2].data),
                                reinterpret_cast<uint8_t*>(y.data()),
                                reinterpret_cast<uint8_t*>(z.data())};
  for (const Node& m : nodes)
    ASSERT_EQ(xnnpack::run_native_node(v, m, st[m.index], bufs.data(), nullptr, nullptr, 0),
              Error::Ok);
  EXPECT_EQ(z, want);
}

}  // namespace
}  // namespace testing
}  // namespace etr
