// aten::native_group_norm.out. Expected values: torch 2.15.0 eager,
// torch.ops.aten.native_group_norm on the inputs below.
#include "kernels/test/kernel_test_util.h"
#include "kernels/test/layout_test_util.h"

namespace etr {
namespace testing {
namespace {

// torch.manual_seed(2); x = torch.randn(2, 4, 3); w = torch.randn(4); b = torch.randn(4)
const std::vector<float> kX = {
    -1.04080117f,  0.916604161f,  -1.3041904f,   -1.10967839f,  -1.21877813f,  1.16759241f,
    -1.05739212f,  -0.118839376f, -0.810986161f, 0.673650205f,  -1.1233027f,   -0.0918939188f,
    -0.132043913f, -0.275058955f, -0.234998211f, 0.0937307477f, -0.739567578f, -1.24245203f,
    -0.17524606f,  0.69896096f,   -0.68614912f,  0.720197737f,  0.196303681f,  0.614159822f};
const std::vector<float> kW = {-0.0591343939f, -1.5652566f, 0.42580393f, -1.48179817f};
const std::vector<float> kB = {-0.476569563f, 0.248043582f, 0.155925184f, -0.160735413f};

struct GroupNormRun {
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 4, 3});
  HostTensor mean = zeros_tensor(ScalarType::Float, {2, 4});
  HostTensor rstd = zeros_tensor(ScalarType::Float, {2, 4});
};

Error run_group_norm(KernelRunner& r, HostTensor& x, HostTensor* w, HostTensor* b, int64_t n,
                     int64_t c, int64_t hxw, int64_t group, double eps, GroupNormRun& o) {
  return r.run("aten::native_group_norm.out",
               {r.tensor(x), w == nullptr ? r.none() : r.tensor(*w),
                b == nullptr ? r.none() : r.tensor(*b), r.i(n), r.i(c), r.i(hxw), r.i(group),
                r.d(eps), r.tensor(o.out), r.tensor(o.mean), r.tensor(o.rstd)});
}

TEST(OpGroupNormTest, AffineTwoGroups) {
  HostTensor x = make_tensor<float>({2, 4, 3}, kX);
  HostTensor w = make_tensor<float>({4}, kW);
  HostTensor b = make_tensor<float>({4}, kB);
  GroupNormRun o;
  KernelRunner r;
  ASSERT_EQ(run_group_norm(r, x, &w, &b, 2, 4, 3, 2, 1e-5, o), Error::Ok);
  // torch.ops.aten.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5)
  expect_close(
      o.out.values<float>(),
      {-0.442184478f, -0.552655697f, -0.427319437f, 1.26109338f,  1.42407453f,    -2.14086032f,
       -0.267979622f, 0.357649148f,  -0.10372816f,  -2.70109701f, 1.46734858f,    -0.925241351f,
       -0.515186906f, -0.496122032f, -0.5014624f,   -1.5707984f,  1.36954796f,    3.14400768f,
       -0.175315127f, 0.54272151f,   -0.594949305f, -1.56748867f, -0.0700288713f, -1.26439786f},
      1e-5, 1e-5);
  EXPECT_EQ(o.mean.tensor().size(0), 2);
  EXPECT_EQ(o.mean.tensor().size(1), 2);
  expect_close(o.mean.values<float>(), {-0.43154195f, -0.421460688f, -0.421731651f, 0.228037834f},
               1e-5, 1e-6);
  expect_close(o.rstd.values<float>(), {0.954394996f, 1.56548309f, 2.25430369f, 1.92895746f}, 1e-5,
               1e-6);
}

TEST(OpGroupNormTest, NoAffineOneChannelPerGroupInDouble) {
  HostTensor x = make_tensor<double>({2, 4, 3}, std::vector<double>(kX.begin(), kX.end()));
  HostTensor out = zeros_tensor(ScalarType::Double, {2, 4, 3});
  HostTensor mean = zeros_tensor(ScalarType::Double, {2, 4});
  HostTensor rstd = zeros_tensor(ScalarType::Double, {2, 4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::native_group_norm.out",
                  {r.tensor(x), r.none(), r.none(), r.i(2), r.i(4), r.i(3), r.i(4), r.d(1e-3),
                   r.tensor(out), r.tensor(mean), r.tensor(rstd)}),
            Error::Ok);
  // torch.ops.aten.native_group_norm(x, None, None, 2, 4, 3, 4, 1e-3) (float inputs)
  expect_close(out.values<double>(),
               {-0.569703281, 1.40514266,   -0.835439324, -0.656670988, -0.755799711, 1.4124707,
                -0.991028547, 1.3638196,    -0.372790903, 1.15904999,   -1.27930391,  0.12025398,
                1.20512772,   -0.896980464, -0.308147192, 1.31023383,   -0.199549839, -1.11068416,
                -0.211423799, 1.31480372,   -1.10337996,  0.919522703,  -1.37468922,  0.455166519},
               1e-5, 1e-5);
  expect_close(mean.values<double>(),
               {-0.476129144, -0.386954725, -0.662405908, -0.180515483, -0.214033693, -0.629429579,
                -0.0541447401, 0.510220408},
               1e-5, 1e-6);
  expect_close(rstd.values<double>(),
               {1.00891006, 0.908605933, 2.50902057, 1.35693812, 14.6985111, 1.81181645, 1.74584222,
                4.3791523},
               1e-5, 1e-6);
}

TEST(OpGroupNormTest, RefusesBadSizes) {
  HostTensor x = make_tensor<float>({2, 4, 3}, kX);
  HostTensor w = make_tensor<float>({4}, kW);
  {  // C not divisible by group: torch refuses too
    GroupNormRun o;
    KernelRunner r;
    EXPECT_EQ(run_group_norm(r, x, nullptr, nullptr, 2, 4, 3, 3, 1e-5, o), Error::InvalidArgument);
  }
  {  // N * C * HxW != numel
    GroupNormRun o;
    KernelRunner r;
    EXPECT_EQ(run_group_norm(r, x, nullptr, nullptr, 2, 4, 4, 2, 1e-5, o), Error::InvalidArgument);
  }
  {  // weight of the wrong length
    HostTensor w3 = make_tensor<float>({3}, {1, 2, 3});
    GroupNormRun o;
    KernelRunner r;
    EXPECT_EQ(run_group_norm(r, x, &w3, nullptr, 2, 4, 3, 2, 1e-5, o), Error::InvalidArgument);
  }
  {  // group 0 is refused at load
    GroupNormRun o;
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::native_group_norm.out",
                        {r.tensor(x), r.tensor(w), r.none(), r.i(2), r.i(4), r.i(3), r.i(0),
                         r.d(1e-5), r.tensor(o.out), r.tensor(o.mean), r.tensor(o.rstd)}),
              Error::InvalidArgument);
  }
  {  // integer input
    HostTensor xi = zeros_tensor(ScalarType::Int, {2, 4, 3});
    HostTensor oi = zeros_tensor(ScalarType::Int, {2, 4, 3});
    HostTensor mi = zeros_tensor(ScalarType::Int, {2, 2});
    HostTensor ri = zeros_tensor(ScalarType::Int, {2, 2});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::native_group_norm.out",
                        {r.tensor(xi), r.none(), r.none(), r.i(2), r.i(4), r.i(3), r.i(2),
                         r.d(1e-5), r.tensor(oi), r.tensor(mi), r.tensor(ri)}),
              Error::InvalidType);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr

namespace etr {
namespace testing {
namespace {

// A channels-last input and out (dim order 0,2,3,1), computed through the
// strides (torch 2.15.0 eager):
// x = ((torch.arange(48.) % 11 - 5) / 3).reshape(2, 4, 3, 2)
// xc = x.contiguous(memory_format=torch.channels_last)
// torch.ops.aten.native_group_norm(xc, [1, -0.5, 2, 0.25], [0.1, 0, -0.3, 0.5], 2, 4, 6, 2,
// 1e-5); out is channels-last too (values below in logical order).
TEST(OpGroupNormTest, ChannelsLastInStoredLayout) {
  std::vector<float> xv(48);
  for (int i = 0; i < 48; ++i) xv[i] = static_cast<float>(i % 11 - 5) / 3;
  HostTensor logical = make_tensor<float>({2, 4, 3, 2}, xv);
  HostTensor x = make_in_order<float>({2, 4, 3, 2}, xv, kChannelsLast);
  HostTensor w = make_tensor<float>({4}, {1.0f, -0.5f, 2.0f, 0.25f});
  HostTensor b = make_tensor<float>({4}, {0.1f, 0.0f, -0.3f, 0.5f});
  GroupNormRun o;
  o.out = zeros_in_order(ScalarType::Float, {2, 4, 3, 2}, kChannelsLast);
  o.mean = zeros_tensor(ScalarType::Float, {2, 2});
  o.rstd = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r;
  ASSERT_EQ(run_group_norm(r, x, &w, &b, 2, 4, 6, 2, 1e-5, o), Error::Ok);
  const std::vector<float> want = {
      -1.277148f,  -0.9766793f, -0.6762106f, -0.375742f,  -0.07527337f, 0.2251953f,  -0.2128319f,
      -0.3630663f, -0.5133005f, -0.6635349f, -0.8137692f, 0.6885739f,   -2.575176f,  -1.954673f,
      -1.334171f,  -0.7136683f, -0.0931658f, 0.5273367f,  0.6809799f,   0.7585427f,  0.8361055f,
      0.9136683f,  0.1380402f,  0.215603f,   -0.7760336f, -0.457476f,   -0.1389183f, 0.1796394f,
      0.4981971f,  0.8167548f,  -0.5176562f, -0.6769351f, -0.8362139f,  0.7565745f,  0.5972957f,
      0.4380168f,  -1.491361f,  -0.8415278f, -0.1916944f, 0.4581389f,   1.107972f,   1.757806f,
      0.8384548f,  0.9196841f,  0.1073923f,  0.1886215f,  0.2698507f,   0.3510799f};
  const std::vector<float> got = logical_values<float>(o.out);
  expect_close(got, want, 1e-5, 1e-5);
  expect_close(o.mean.values<float>(),
               {-0.138888881f, -0.111111134f, -0.0833333209f, -0.0555555634f}, 1e-6, 1e-7);
  expect_close(o.rstd.values<float>(), {0.901405871f, 0.930753767f, 0.955673039f, 0.974750042f},
               1e-6, 1e-6);
  // The same input contiguous gives the same numbers.
  GroupNormRun flat;
  flat.out = zeros_tensor(ScalarType::Float, {2, 4, 3, 2});
  flat.mean = zeros_tensor(ScalarType::Float, {2, 2});
  flat.rstd = zeros_tensor(ScalarType::Float, {2, 2});
  KernelRunner r2;
  ASSERT_EQ(run_group_norm(r2, logical, &w, &b, 2, 4, 6, 2, 1e-5, flat), Error::Ok);
  EXPECT_EQ(flat.out.values<float>(), got);
}

}  // namespace
}  // namespace testing
}  // namespace etr
