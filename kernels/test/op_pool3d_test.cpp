// Tests for aten::max_pool3d_with_indices.out, avg_pool3d.out and
// _adaptive_avg_pool3d.out, in the default and the channels_last_3d dim
// orders. Expected values: PyTorch eager (torch.ops.aten, CPU), printed by
//   /opt/tv/bin/python kernels/test/gen_convpool_expected.py
// (block "op_pool3d_test.cpp"); the generator also checks that PyTorch's
// channels_last_3d results equal the default ones, so both layouts are
// compared with the same values here.
#include <cstring>

#include "kernels/test/layout_test_util.h"

namespace etr {
namespace testing {
namespace {

// BEGIN GENERATED op_pool3d_test.cpp
const std::vector<float> kMaxPool3dVals = {
    21.5f,  40.0f,  49.25f, 35.25f, 45.75f, 45.75f, 50.25f, 50.25f, 45.75f, 46.75f, 50.25f, 50.25f,
    37.5f,  46.75f, 1.75f,  11.0f,  52.5f,  47.75f, 47.75f, 35.25f, 52.5f,  47.75f, 50.25f, 50.25f,
    44.25f, 46.75f, 50.25f, 51.25f, 37.5f,  46.75f, 42.0f,  51.25f, 29.25f, 47.75f, 47.75f, 43.0f,
    44.25f, 47.75f, 48.75f, 43.0f,  45.25f, 45.25f, 48.75f, 18.75f, 45.25f, 45.25f, 9.5f,   18.75f,
    37.0f,  46.25f, 1.25f,  10.5f,  52.0f,  46.25f, 25.5f,  34.75f, 52.0f,  31.25f, 49.75f, 49.75f,
    12.75f, 31.25f, 49.75f, 49.75f, 37.0f,  46.25f, 41.5f,  50.75f, 52.0f,  47.25f, 47.25f, 50.75f,
    52.0f,  47.25f, 48.25f, 42.5f,  43.75f, 39.0f,  48.25f, 26.5f,  44.75f, 44.75f, 9.0f,   18.25f,
    44.75f, 44.75f, 33.25f, 42.5f,  20.5f,  39.0f,  48.25f, 42.5f,  20.5f,  39.0f,  48.25f, 34.25f};
const std::vector<int64_t> kMaxPool3dIdx = {
    8,   10,  11,  55,  22,  22,  68,  68,  22,  79,  68,  68,  78,  79,  40,  41,
    91,  136, 136, 55,  91,  136, 68,  68,  147, 79,  68,  125, 78,  79,  124, 125,
    134, 136, 136, 181, 147, 136, 193, 181, 204, 204, 193, 167, 204, 204, 166, 167,
    50,  51,  12,  13,  63,  51,  26,  27,  63,  38,  40,  40,  36,  38,  40,  40,
    50,  51,  96,  97,  63,  108, 108, 97,  63,  108, 165, 153, 119, 164, 165, 83,
    176, 176, 138, 139, 176, 176, 152, 153, 162, 164, 165, 153, 162, 164, 165, 209};
const std::vector<float> kMaxPool3dUnbatchedVals = {
    25.5f,  29.5f,  16.25f, 30.0f, 24.75f, 29.25f, 28.5f, 10.5f,  29.0f, 28.75f, 28.25f, 19.5f,
    27.25f, 23.25f, 27.75f, 27.0f, 13.75f, 27.5f,  17.5f, 26.75f, 26.0f, 8.0f,   26.5f,  21.25f};
const std::vector<int64_t> kMaxPool3dUnbatchedIdx = {
    6, 39, 5, 13, 45, 52, 91, 63, 65, 78, 104, 77, 36, 3, 10, 49, 15, 23, 61, 62, 101, 73, 75, 107};
const std::vector<float> kAvgPool3dInclCeil = {
    -0.138888896f,  -0.166666672f,  -0.111111112f, -0.259259254f,   0.296296299f,   -0.185185179f,
    0.32407406f,    -0.203703701f,  -0.166666672f, 0.185185179f,    -0.157407403f,  0.185185179f,
    -0.305555552f,  0.291666657f,   0.013888889f,  0.0833333358f,   0.157407403f,   -0.287037045f,
    0.00925925933f, -0.555555582f,  0.407407403f,  -0.120370373f,   0.111111112f,   -0.129629627f,
    -0.5f,          0.435185194f,   -0.398148149f, 0.453703701f,    -0.583333313f,  0.25f,
    -0.166666672f,  0.0f,           0.277777791f,  -0.0740740746f,  0.194444448f,   -0.268518507f,
    0.388888896f,   -0.0462962948f, 0.0370370373f, 0.101851851f,    -0.287037045f,  0.32407406f,
    -0.231481478f,  0.277777791f,   -0.152777776f, 0.0416666679f,   -0.236111104f,  -0.0833333358f,
    0.129629627f,   -0.296296299f,  0.185185179f,  -0.203703701f,   0.166666672f,   0.0462962948f,
    -0.0833333358f, 0.305555552f,   -0.296296299f, -0.00925925933f, -0.138888896f,  0.055555556f,
    0.055555556f,   -0.125f,        0.236111104f,  -0.194444448f,   0.453703701f,   -0.268518507f,
    0.240740746f,   -0.259259254f,  0.0f,          0.120370373f,    -0.0740740746f, 0.527777791f,
    -0.481481493f,  0.0370370373f,  -0.157407403f, -0.166666672f,   -0.0416666679f, -0.375f,
    0.166666672f,   -0.416666657f,  0.333333343f,  0.00925925933f,  0.277777791f,   0.0f,
    -0.166666672f,  0.185185179f,   -0.157407403f, 0.185185179f,    -0.203703701f,  -0.0833333358f,
    0.0f,           -0.277777791f,  -0.111111112f, -0.375f,         -0.013888889f,  -0.361111104f};
const std::vector<float> kAvgPool3dExcl = {
    -0.416666657f, -0.291666657f, -1.125f,        -0.4375f,      0.166666672f,  -0.666666687f,
    0.0f,          0.125f,        0.25f,          0.4375f,       -0.395833343f, 0.208333328f,
    0.395833343f,  -0.4375f,      0.166666672f,   -0.125f,       0.0f,          0.125f,
    -0.625f,       0.458333343f,  -0.375f,        0.166666672f,  0.611111104f,  -0.222222224f,
    -0.013888889f, 0.430555552f,  -0.402777791f,  -0.055555556f, -0.25f,        -0.125f,
    0.541666687f,  -0.291666657f, 0.472222209f,   0.5f,          -0.013888889f, 0.430555552f,
    -0.5f,         -0.055555556f, -0.25f,         -1.0f,         0.0833333358f, -0.75f,
    -0.208333328f, 0.875f,        0.0416666679f,  0.25f,         0.375f,        0.020833334f,
    0.208333328f,  -0.625f,       -0.020833334f,  0.166666672f,  -0.666666687f, 0.416666657f,
    0.125f,        0.25f,         0.375f,         -0.395833343f, 0.208333328f,  -0.625f,
    -0.416666657f, -0.291666657f, -1.125f,        -0.708333313f, 0.375f,        -0.458333343f,
    -0.25f,        -0.125f,       0.0f,           0.666666687f,  -0.166666672f, 0.4375f,
    0.625f,        -0.208333328f, 0.395833343f,   -0.375f,       -0.25f,        -0.125f,
    -0.416666657f, 0.666666687f,  -0.166666672f,  0.0416666679f, 1.125f,        0.291666657f,
    0.194444448f,  0.0f,          -0.194444448f,  0.013888889f,  -0.5f,         -0.055555556f,
    0.291666657f,  -0.541666687f, 0.541666687f,   0.25f,         0.055555556f,  0.5f,
    -0.430555552f, 0.013888889f,  -0.5f,          -0.472222209f, 0.291666657f,  -0.541666687f,
    -0.333333343f, 0.75f,         -0.0833333358f, 0.458333343f,  -0.375f,       0.708333313f,
    0.4375f,       -0.395833343f, 0.208333328f,   0.395833343f,  -0.4375f,      0.166666672f,
    -0.125f,       0.0f,          0.125f,         -0.166666672f, 0.4375f,       -0.395833343f,
    -0.208333328f, 0.395833343f,  -0.4375f,       -0.708333313f, 0.375f,        -0.458333343f};
const std::vector<float> kAvgPool3dDivisor = {
    -1.25f,        -3.0f,         1.0f,          1.16666663f,   -2.5f,         -2.33333325f,
    1.83333337f,   -1.83333337f,  -1.66666663f,  2.33333325f,   2.5f,          -1.16666663f,
    3.0f,          1.25f,         -2.41666675f,  -0.333333343f, 3.66666675f,   0.0f,
    0.333333343f,  2.41666675f,   -1.25f,        -3.0f,         1.0f,          1.16666663f,
    -2.33333325f,  1.66666663f,   1.83333337f,   -1.83333337f,  -1.66666663f,  2.33333325f,
    0.0f,          -3.66666675f,  0.333333343f,  2.41666675f,   -1.25f,        -3.0f,
    1.16666663f,   -2.5f,         -2.33333325f,  1.66666663f,   1.83333337f,   -1.83333337f,
    2.33333325f,   2.5f,          -1.16666663f,  -1.0f,         3.0f,          1.25f,
    -0.333333343f, 3.66666675f,   0.0f,          -3.66666675f,  0.333333343f,  2.41666675f,
    -3.0f,         1.0f,          1.16666663f,   -2.5f,         -2.33333325f,  1.66666663f,
    1.25f,         -2.41666675f,  -0.333333343f, 3.66666675f,   0.0f,          -3.66666675f,
    2.41666675f,   -1.25f,        -3.0f,         1.0f,          1.16666663f,   -2.5f,
    1.66666663f,   1.83333337f,   -1.83333337f,  -1.66666663f,  2.33333325f,   2.5f,
    -1.0f,         3.0f,          1.25f,         -2.41666675f,  -0.333333343f, 3.66666675f,
    -3.66666675f,  0.333333343f,  2.41666675f,   -1.25f,        -3.0f,         1.0f,
    2.5f,          -1.16666663f,  -1.0f,         3.0f,          1.25f,         -2.41666675f,
    3.66666675f,   0.0f,          -3.66666675f,  0.333333343f,  2.41666675f,   -1.25f,
    1.0f,          1.16666663f,   -2.5f,         -2.33333325f,  1.66666663f,   1.83333337f,
    -1.66666663f,  2.33333325f,   2.5f,          -1.16666663f,  -1.0f,         3.0f,
    -2.41666675f,  -0.333333343f, 3.66666675f,   0.0f,          -3.66666675f,  0.333333343f,
    1.16666663f,   -2.5f,         -2.33333325f,  1.66666663f,   1.83333337f,   -1.83333337f,
    2.33333325f,   2.5f,          -1.16666663f,  -1.0f,         3.0f,          1.25f,
    -0.333333343f, 3.66666675f,   0.0f,          -3.66666675f,  0.333333343f,  2.41666675f,
    -3.0f,         1.0f,          1.16666663f,   -2.5f,         -2.33333325f,  1.66666663f,
    -1.83333337f,  -1.66666663f,  2.33333325f,   2.5f,          -1.16666663f,  -1.0f,
    2.41666675f,   -1.25f,        -3.0f,         1.0f,          1.16666663f,   -2.5f,
    1.66666663f,   1.83333337f,   -1.83333337f,  -1.66666663f,  2.33333325f,   2.5f,
    -1.0f,         3.0f,          1.25f,         -2.41666675f,  -0.333333343f, 3.66666675f,
    -3.66666675f,  0.333333343f,  2.41666675f,   -1.25f,        -3.0f,         1.0f,
    -2.5f,         -2.33333325f,  1.66666663f,   1.83333337f,   -1.83333337f,  -1.66666663f,
    3.66666675f,   0.0f,          -3.66666675f,  0.333333343f,  2.41666675f,   -1.25f,
    1.0f,          1.16666663f,   -2.5f,         -2.33333325f,  1.66666663f,   1.83333337f,
    -1.66666663f,  2.33333325f,   2.5f,          -1.16666663f,  -1.0f,         3.0f,
    -2.41666675f,  -0.333333343f, 3.66666675f,   0.0f,          -3.66666675f,  0.333333343f,
    -1.25f,        -3.0f,         1.0f,          1.16666663f,   -2.5f,         -2.33333325f,
    3.0f,          1.25f,         -2.41666675f,  -0.333333343f, 3.66666675f,   0.0f,
    0.333333343f,  2.41666675f,   -1.25f,        -3.0f,         1.0f,          1.16666663f,
    -2.33333325f,  1.66666663f,   1.83333337f,   -1.83333337f,  -1.66666663f,  2.33333325f,
    -1.16666663f,  -1.0f,         3.0f,          1.25f,         -2.41666675f,  -0.333333343f,
    0.0f,          -3.66666675f,  0.333333343f,  2.41666675f,   -1.25f,        -3.0f};
const std::vector<float> kAdaptiveAvgPool3d = {
    -0.4375f,      -0.138888881f,  0.416666657f,   0.125f,         0.145833328f,   -0.027777778f,
    -0.416666657f, 0.0f,           0.020833334f,   0.0833333358f,  0.166666672f,   -0.125f,
    -0.125f,       -0.416666657f,  0.138888881f,   0.4375f,        0.104166664f,   0.166666672f,
    -0.222222224f, -0.395833343f,  -0.020833334f,  0.0416666679f,  0.125f,         0.1875f,
    -0.1875f,      -0.125f,        -0.0416666679f, 0.020833334f,   0.395833343f,   0.222222224f,
    -0.166666672f, -0.104166664f,  -0.4375f,       -0.138888881f,  0.416666657f,   0.125f,
    0.125f,        -0.166666672f,  -0.0833333358f, -0.020833334f,  0.0f,           0.416666657f,
    0.027777778f,  -0.145833328f,  -0.125f,        -0.416666657f,  0.138888881f,   0.4375f,
    0.0625f,       0.125f,         -0.027777778f,  -0.4375f,       -0.0625f,       0.0f,
    0.0833333358f, 0.145833328f,   -0.1875f,       -0.125f,        -0.0416666679f, 0.020833334f,
    0.020833334f,  0.0833333358f,  0.166666672f,   -0.125f,        -0.104166664f,  -0.0416666679f,
    0.0416666679f, 0.104166664f,   0.125f,         -0.166666672f,  -0.0833333358f, -0.020833334f,
    -0.395833343f, 0.138888881f,   0.222222224f,   -0.1875f,       0.1875f,        -0.222222224f,
    -0.138888881f, 0.395833343f,   0.0625f,        0.125f,         -0.027777778f,  -0.4375f,
    -0.4375f,      -0.138888881f,  0.416666657f,   0.125f,         0.145833328f,   -0.027777778f,
    -0.416666657f, 0.0f,           0.020833334f,   0.0833333358f,  0.166666672f,   -0.125f,
    -0.145833328f, -0.0833333358f, 0.0f,           0.0625f,        0.4375f,        0.027777778f,
    -0.125f,       -0.0625f,       -0.395833343f,  0.138888881f,   0.222222224f,   -0.1875f,
    -0.1875f,      -0.125f,        -0.0416666679f, 0.020833334f,   0.395833343f,   0.222222224f,
    -0.166666672f, -0.104166664f,  -0.4375f,       -0.138888881f,  0.416666657f,   0.125f,
    0.104166664f,  0.166666672f,   -0.222222224f,  -0.395833343f,  -0.020833334f,  0.0416666679f,
    0.125f,        0.1875f,        -0.145833328f,  -0.0833333358f, 0.0f,           0.0625f,
    0.0625f,       0.125f,         -0.027777778f,  -0.4375f,       -0.0625f,       0.0f,
    0.0833333358f, 0.145833328f,   -0.1875f,       -0.125f,        -0.0416666679f, 0.020833334f};
// END GENERATED

Error run_max_pool3d(HostTensor& x, std::vector<int64_t> k, std::vector<int64_t> s,
                     std::vector<int64_t> p, std::vector<int64_t> d, bool ceil, HostTensor& out,
                     HostTensor& idx) {
  KernelRunner r;
  return r.run("aten::max_pool3d_with_indices.out",
               {r.tensor(x), r.int_list(k), r.int_list(s), r.int_list(p), r.int_list(d), r.b(ceil),
                r.tensor(out), r.tensor(idx)});
}

Error run_avg_pool3d(HostTensor& x, std::vector<int64_t> k, std::vector<int64_t> s,
                     std::vector<int64_t> p, bool ceil, bool count_include_pad, int64_t divisor,
                     HostTensor& out) {
  KernelRunner r;
  return r.run("aten::avg_pool3d.out",
               {r.tensor(x), r.int_list(k), r.int_list(s), r.int_list(p), r.b(ceil),
                r.b(count_include_pad), divisor == 0 ? r.none() : r.i(divisor), r.tensor(out)});
}

Error run_adaptive3d(HostTensor& x, std::vector<int64_t> size, HostTensor& out) {
  KernelRunner r;
  return r.run("aten::_adaptive_avg_pool3d.out", {r.tensor(x), r.int_list(size), r.tensor(out)});
}

class OpPool3dLayoutTest : public ::testing::TestWithParam<bool> {
 protected:
  std::vector<uint8_t> order() const {
    return GetParam() ? kChannelsLast3d : std::vector<uint8_t>{};
  }
};

TEST_P(OpPool3dLayoutTest, MaxPoolPaddingDilationCeil) {
  auto x = make_in_order<float>({1, 2, 5, 6, 7}, pattern(420, 37, 421), order());
  auto out = zeros_in_order(ScalarType::Float, {1, 2, 3, 4, 4}, order());
  auto idx = zeros_in_order(ScalarType::Long, {1, 2, 3, 4, 4}, order());
  ASSERT_EQ(run_max_pool3d(x, {3, 2, 3}, {2, 2, 2}, {1, 1, 1}, {1, 2, 1}, true, out, idx),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 2, 3, 4, 4}));
  EXPECT_EQ(logical_values<float>(out), kMaxPool3dVals);
  EXPECT_EQ(logical_values<int64_t>(idx), kMaxPool3dIdx);
}

TEST_P(OpPool3dLayoutTest, AvgPoolCountIncludePadCeil) {
  auto x = make_in_order<float>({1, 2, 5, 6, 7}, pattern(420, 29, 23), order());
  auto out = zeros_in_order(ScalarType::Float, {1, 2, 3, 4, 4}, order());
  ASSERT_EQ(run_avg_pool3d(x, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, true, true, 0, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 2, 3, 4, 4}));
  expect_close(logical_values<float>(out), kAvgPool3dInclCeil);
}

TEST_P(OpPool3dLayoutTest, AvgPoolExcludePad) {
  auto x = make_in_order<float>({1, 2, 5, 6, 7}, pattern(420, 29, 23), order());
  auto out = zeros_in_order(ScalarType::Float, {1, 2, 3, 7, 3}, order());
  ASSERT_EQ(run_avg_pool3d(x, {3, 2, 3}, {2, 1, 2}, {1, 1, 0}, false, false, 0, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 2, 3, 7, 3}));
  expect_close(logical_values<float>(out), kAvgPool3dExcl);
}

TEST_P(OpPool3dLayoutTest, AvgPoolDivisorOverride) {
  auto x = make_in_order<float>({1, 2, 5, 6, 7}, pattern(420, 29, 23), order());
  auto out = zeros_in_order(ScalarType::Float, {1, 2, 4, 5, 6}, order());
  ASSERT_EQ(run_avg_pool3d(x, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, false, true, 3, out), Error::Ok);
  expect_close(logical_values<float>(out), kAvgPool3dDivisor);
}

TEST_P(OpPool3dLayoutTest, AdaptiveAvgPoolNonDivisible) {
  auto x = make_in_order<float>({2, 3, 5, 6, 7}, pattern(1260), order());
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 2, 3, 4}, order());
  ASSERT_EQ(run_adaptive3d(x, {2, 3, 4}, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 3, 2, 3, 4}));
  expect_close(logical_values<float>(out), kAdaptiveAvgPool3d);
}

INSTANTIATE_TEST_SUITE_P(Layouts, OpPool3dLayoutTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return std::string(param_info.param ? "ChannelsLast3d" : "Default");
                         });

TEST(OpPool3dTest, MaxPoolUnbatchedDefaultStride) {
  auto x = make_tensor<float>({2, 4, 5, 6}, pattern(240, 37, 241));
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 2, 3});
  auto idx = zeros_tensor(ScalarType::Long, {2, 2, 2, 3});
  ASSERT_EQ(run_max_pool3d(x, {2}, {}, {0}, {1}, false, out, idx), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2, 2, 3}));
  EXPECT_EQ(out.values<float>(), kMaxPool3dUnbatchedVals);
  EXPECT_EQ(idx.values<int64_t>(), kMaxPool3dUnbatchedIdx);
}

TEST(OpPool3dTest, MixedLayoutsChannelsLastInDefaultOut) {
  auto x = make_in_order<float>({1, 2, 5, 6, 7}, pattern(420, 37, 421), kChannelsLast3d);
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 3, 4, 4});
  auto idx = zeros_in_order(ScalarType::Long, {1, 2, 3, 4, 4}, kChannelsLast3d);
  ASSERT_EQ(run_max_pool3d(x, {3, 2, 3}, {2, 2, 2}, {1, 1, 1}, {1, 2, 1}, true, out, idx),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), kMaxPool3dVals);
  EXPECT_EQ(logical_values<int64_t>(idx), kMaxPool3dIdx);
}

// Half goes through portable_half (widened to float): means of small
// integers are exact in half precision.
TEST(OpPool3dTest, HalfAvgPoolThroughPortableHalf) {
  // 1.0, 2.0, ..., 8.0 in IEEE half bits; a [1, 1, 2, 2, 2] input, one window.
  const std::vector<uint16_t> bits = {0x3C00, 0x4000, 0x4200, 0x4400,
                                      0x4500, 0x4600, 0x4700, 0x4800};
  Result<HostTensor> x = HostTensor::from_bytes(ScalarType::Half, {1, 1, 2, 2, 2}, bits.data(),
                                                bits.size() * sizeof(uint16_t));
  ASSERT_TRUE(x.ok());
  auto out = zeros_tensor(ScalarType::Half, {1, 1, 1, 1, 1});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::avg_pool3d.out", {r.tensor(*x), r.int_list({2}), r.int_list({}), r.int_list({0}),
                                     r.b(false), r.b(true), r.none(), r.tensor(out)}),
      Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable_half");
  // torch.nn.functional.avg_pool3d(torch.arange(1., 9.).half().view(1,1,2,2,2), 2) == 4.5
  EXPECT_EQ(out.values<uint16_t>(), (std::vector<uint16_t>{0x4480}));
}

TEST(OpPool3dTest, FourDimKernelInputFails) {
  auto x = zeros_tensor(ScalarType::Float, {4, 5, 6});
  auto out = zeros_tensor(ScalarType::Float, {4, 2, 3});
  auto idx = zeros_tensor(ScalarType::Long, {4, 2, 3});
  EXPECT_EQ(run_max_pool3d(x, {2}, {}, {0}, {1}, false, out, idx), Error::InvalidArgument);
}

TEST(OpPool3dTest, TwoEntryKernelFails) {
  auto x = zeros_tensor(ScalarType::Float, {1, 1, 4, 4, 4});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2, 2});
  EXPECT_EQ(run_avg_pool3d(x, {2, 2}, {}, {0}, false, true, 0, out), Error::InvalidArgument);
}

TEST(OpPool3dTest, PaddingLargerThanHalfKernelFails) {
  auto x = zeros_tensor(ScalarType::Float, {1, 1, 4, 4, 4});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 4, 4, 4});
  auto idx = zeros_tensor(ScalarType::Long, {1, 1, 4, 4, 4});
  EXPECT_EQ(run_max_pool3d(x, {2, 2, 2}, {1}, {0, 2, 0}, {1}, false, out, idx),
            Error::InvalidArgument);
}

TEST(OpPool3dTest, ZeroDivisorFails) {
  auto x = zeros_tensor(ScalarType::Float, {1, 1, 4, 4, 4});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2, 2});
  KernelRunner r;
  EXPECT_EQ(
      r.run("aten::avg_pool3d.out", {r.tensor(x), r.int_list({2}), r.int_list({}), r.int_list({0}),
                                     r.b(false), r.b(true), r.i(0), r.tensor(out)}),
      Error::InvalidArgument);
}

TEST(OpPool3dTest, AdaptiveTwoEntryOutputSizeFails) {
  auto x = zeros_tensor(ScalarType::Float, {1, 1, 4, 4, 4});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2, 2});
  EXPECT_EQ(run_adaptive3d(x, {2, 2}, out), Error::InvalidArgument);
}

TEST(OpPool3dTest, IntIndicesFail) {
  auto x = zeros_tensor(ScalarType::Float, {1, 1, 4, 4, 4});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 2, 2, 2});
  auto idx = zeros_tensor(ScalarType::Int, {1, 1, 2, 2, 2});
  EXPECT_EQ(run_max_pool3d(x, {2}, {}, {0}, {1}, false, out, idx), Error::InvalidType);
}

TEST(OpPool3dTest, EmptyChannelFailsAtRun) {
  auto x = zeros_tensor(ScalarType::Float, {1, 0, 4, 4, 4});
  auto out = zeros_tensor(ScalarType::Float, {1, 0, 2, 2, 2});
  EXPECT_EQ(run_avg_pool3d(x, {2}, {}, {0}, false, true, 0, out), Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
