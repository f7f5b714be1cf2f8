// The delegate's int8 element-wise operations (backends/xnnpack/
// native_qs8_elementwise.h) against Debian's XNNPACK itself: the add
// (xnn_create_add_nd_qs8) on every pair of int8 codes, for several scales,
// zero points and output bounds, and the quantization
// (xnn_create_convert_nc_f32_qs8) on values around every code, ties,
// saturating values and NaN; each loop (AVX2, SSE2, scalar) and the native
// Add node must give XNNPACK's bytes.
#include "backends/xnnpack/native_qs8_elementwise.h"

#include <gtest/gtest.h>

#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/xnnpack/native_nodes.h"
#include "test/xnnpack/native_node_util.h"

namespace etr {
namespace testing {
namespace {

struct AddCase {
  float as;
  int32_t azp;
  float bs;
  int32_t bzp;
  float ys;
  int32_t yzp;
  int8_t qmin, qmax;
};

// Value `id`: int8 codes [1, n] at (scale, zero point).
Value qcodes(uint32_t id, size_t n, float scale, int32_t zp) {
  return qvalue(id, Dtype::QInt8, {1, n}, scale, zp);
}

TEST(NativeQAddTest, EveryCodePairMatchesXnnpack) {
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  const AddCase cases[] = {
      {0.05f, -3, 0.07f, 4, 0.09f, -1, -128, 127},
      {0.1f, 0, 0.1f, 0, 0.1f, 0, -128, 127},
      {0.0312f, 12, 0.0417f, -20, 0.0388f, 5, -128, 127},
      {0.2f, -128, 0.013f, 127, 0.05f, 3, -128, 127},  // ratios 4 and 0.26
      {0.021f, 1, 0.5f, 2, 0.3f, -7, -20, 90},         // narrowed bounds
      {0.0009f, 7, 0.0011f, -9, 0.6f, 0, -128, 127},   // ratios near 2^-10
  };
  const size_t n = 65536 + 19;  // every pair, then a tail for the scalar loop
  std::vector<int8_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<int8_t>(i & 255);
    b[i] = static_cast<int8_t>((i >> 8) & 255);
  }
  for (const AddCase& k : cases) {
    SCOPED_TRACE(::testing::Message() << k.as << " " << k.bs << " " << k.ys);
    xnn_operator_t op = nullptr;
    ASSERT_EQ(xnn_create_add_nd_qs8(static_cast<int8_t>(k.azp), k.as, static_cast<int8_t>(k.bzp),
                                    k.bs, static_cast<int8_t>(k.yzp), k.ys, k.qmin, k.qmax, 0, &op),
              xnn_status_success);
    std::vector<int8_t> want(n);
    const size_t shape[1] = {n};
    ASSERT_EQ(
        xnn_setup_add_nd_qs8(op, 1, shape, 1, shape, a.data(), b.data(), want.data(), nullptr),
        xnn_status_success);
    ASSERT_EQ(xnn_run_operator(op, nullptr), xnn_status_success);
    xnn_delete_operator(op);
    xnnpack::QAddParams p;
    ASSERT_TRUE(xnnpack::qadd_params(k.as, k.azp, k.bs, k.bzp, k.ys, k.yzp, k.qmin, k.qmax, &p));
    std::vector<int8_t> y(n, 99), y1(n, 99);
    xnnpack::qs8_add(a.data(), b.data(), y.data(), n, p);
    for (size_t i = 0; i < n; ++i) xnnpack::qs8_add(&a[i], &b[i], &y1[i], 1, p);  // scalar
    size_t bad = 0, bad1 = 0, bounded = 0;
    for (size_t i = 0; i < n; ++i) {
      bad += y[i] != want[i];
      bad1 += y1[i] != want[i];
      bounded += want[i] == k.qmin || want[i] == k.qmax;
    }
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(bad1, 0u);
    EXPECT_LT(bounded, n);
    // The native Add node on the same operands.
    Values v = {qcodes(0, n, k.as, k.azp), qcodes(1, n, k.bs, k.bzp), qcodes(2, n, k.ys, k.yzp)};
    Node node = make_node(NodeKind::Add, 0, {0, 1}, 2);
    node.output_min = (static_cast<float>(k.qmin) - static_cast<float>(k.yzp)) * k.ys;
    node.output_max = (static_cast<float>(k.qmax) - static_cast<float>(k.yzp)) * k.ys;
    if (k.qmin == -128) node.output_min = -__builtin_inff();
    if (k.qmax == 127) node.output_max = __builtin_inff();
    ASSERT_TRUE(xnnpack::is_native_node(v, node));
    ASSERT_EQ(xnnpack::check_native_node(v, node, 0), Error::Ok);
    std::vector<int8_t> yn(n, 99);
    uint8_t* bufs[3] = {reinterpret_cast<uint8_t*>(a.data()), reinterpret_cast<uint8_t*>(b.data()),
                        reinterpret_cast<uint8_t*>(yn.data())};
    xnnpack::NativeState st;
    ASSERT_EQ(xnnpack::run_native_node(v, node, st, bufs, nullptr, nullptr, 0), Error::Ok);
    EXPECT_EQ(yn, want);
  }
}

TEST(NativeQuantizeTest, ConversionToInt8MatchesXnnpack) {
#if !(defined(__x86_64__) || defined(__i386__))
  GTEST_SKIP() << "the delegate runs XNNPACK's own conversion off x86 (its Arm kernel rounds "
                  "ties differently)";
#endif
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  // Values in steps of an eighth of a code from below -128 to past 127, ties
  // among them, then huge values and a NaN; the length leaves a tail for
  // each loop.
  for (const float scale : {0.04f, 0.1f, 0.0313f}) {
    for (const int32_t zp : {3, -128, 127, 0}) {
      std::vector<float> x;
      for (int i = -160 * 8; i <= 160 * 8; ++i)
        x.push_back(static_cast<float>(i) / 8.0f * scale + static_cast<float>(-zp) * scale);
      for (float v : {1e30f, -1e30f, std::nanf(""), 3.0e9f, -3.0e9f}) x.push_back(v);
      x.push_back(0.5f * scale);
      SCOPED_TRACE(::testing::Message() << "scale " << scale << " zero point " << zp);
      xnn_operator_t op = nullptr;
      ASSERT_EQ(
          xnn_create_convert_nc_f32_qs8(1, 1, 1, scale, static_cast<int8_t>(zp), -128, 127, 0, &op),
          xnn_status_success);
      std::vector<int8_t> want(x.size());
      ASSERT_EQ(xnn_setup_convert_nc_f32_qs8(op, x.size(), x.data(), want.data(), nullptr),
                xnn_status_success);
      ASSERT_EQ(xnn_run_operator(op, nullptr), xnn_status_success);
      xnn_delete_operator(op);
      std::vector<int8_t> y(x.size(), 99), y1(x.size(), 99);
      xnnpack::qs8_quantize(x.data(), y.data(), x.size(), 1.0f / scale, zp);
      for (size_t i = 0; i < x.size(); ++i)  // the scalar loop
        xnnpack::qs8_quantize(&x[i], &y1[i], 1, 1.0f / scale, zp);
      size_t bad = 0, bad1 = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        bad += y[i] != want[i];
        bad1 += y1[i] != want[i];
      }
      EXPECT_EQ(bad, 0u);
      EXPECT_EQ(bad1, 0u);
    }
  }
}

TEST(NativeQAddTest, ScaleRatiosXnnpackRefusesAreRefused) {
  xnnpack::QAddParams p;
  EXPECT_FALSE(xnnpack::qadd_params(0.0001f, 0, 0.1f, 0, 0.5f, 0, -128, 127, &p));  // 2^-12.3
  EXPECT_FALSE(xnnpack::qadd_params(300.0f, 0, 0.1f, 0, 1.0f, 0, -128, 127, &p));   // 300
  EXPECT_TRUE(xnnpack::qadd_params(0.5f, 0, 0.1f, 0, 1.0f, 0, -128, 127, &p));
  Values v = {qcodes(0, 4, 0.0001f, 0), qcodes(1, 4, 0.1f, 0), qcodes(2, 4, 0.5f, 0)};
  const Node node = make_node(NodeKind::Add, 0, {0, 1}, 2);
  EXPECT_NE(xnnpack::check_native_node(v, node, 0), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
