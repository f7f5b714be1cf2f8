// aten::grid_sampler_2d.out. Expected values: torch 2.15.0 eager, the
// torch.ops.aten.grid_sampler_2d call written above each case (x, grid below).
#include <cmath>
#include <limits>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

// x = torch.manual_seed(0); torch.randn(1, 2, 3, 4)
const std::vector<float> kX = {
    -1.12583983f, -1.1523602f,   -0.250578582f, -0.433878809f, 0.848710358f,  0.692009151f,
    -0.31601277f, -2.11521935f,  0.468096405f,  -0.157712445f, 1.44366014f,   0.266049415f,
    0.166455343f, 0.87438184f,   -0.143473849f, -0.111609332f, 0.931826591f,  1.25900924f,
    2.00498056f,  0.0537369028f, 0.618056655f,  -0.412802219f, -0.841064811f, -2.31604195f};
// grid = torch.manual_seed(1); torch.rand(1, 2, 3, 2) * 2.6 - 1.3 (some points outside [-1, 1])
const std::vector<float> kGrid = {0.669842124f, -0.573791683f, -0.252019882f, 0.610179543f,
                                  -1.22386789f, 0.77963233f,   -0.267442942f, 0.661367059f,
                                  0.180722117f, -0.159177423f, 0.360569119f,  0.0641312599f};

struct GridCase {
  int64_t interpolation, padding;
  bool align_corners;
  std::vector<float> expected;  // [1, 2, 2, 3]
};

const GridCase kCases[] = {
    // torch.ops.aten.grid_sampler_2d(x, grid, 0, 0, False)
    {0,
     0,
     false,
     {-0.602634966f, -0.0833474621f, 0.020319188f, -0.129255906f, -0.223902985f, -0.531387985f,
      -0.0493922047f, -0.267449021f, 0.0268286802f, -0.363926589f, 1.4469955f, 1.30983686f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 0, 0, True)
    {0,
     0,
     true,
     {-0.718627155f, 0.244778618f, 0.366618395f, 0.200970098f, -0.14443408f, -0.275038451f,
      0.361664832f, 0.242499501f, 0.456437916f, 0.150301054f, 1.55650079f, 1.74399233f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 0, 1, False)
    {0,
     1,
     false,
     {-0.602634966f, -0.0833474621f, 0.468096405f, -0.129255906f, -0.223902985f, -0.531387985f,
      -0.0493922047f, -0.267449021f, 0.618056655f, -0.363926589f, 1.4469955f, 1.30983686f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 0, 1, True)
    {0,
     1,
     true,
     {-0.718627155f, 0.244778618f, 0.551971436f, 0.200970098f, -0.14443408f, -0.275038451f,
      0.361664832f, 0.242499501f, 0.687201381f, 0.150301054f, 1.55650079f, 1.74399233f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 0, 2, False)
    {0,
     2,
     false,
     {-0.602635026f, -0.0833474621f, 0.468096405f, -0.129255906f, -0.223903f, -0.531387985f,
      -0.0493921973f, -0.267449021f, 0.618056655f, -0.363926589f, 1.44699538f, 1.30983686f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 0, 2, True)
    {0,
     2,
     true,
     {-0.718627155f, 0.244778618f, 0.376537561f, 0.200970098f, -0.14443408f, -0.275038451f,
      0.361664832f, 0.242499501f, 0.441531986f, 0.150301054f, 1.55650079f, 1.74399233f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 1, 0, False)
    {1,
     0,
     false,
     {-0.433878809f, -0.157712445f, 0.0f, -0.157712445f, -0.31601277f, -0.31601277f, -0.111609332f,
      -0.412802219f, 0.0f, -0.412802219f, 2.00498056f, 2.00498056f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 1, 0, True)
    {1,
     0,
     true,
     {-0.433878809f, -0.157712445f, 0.468096405f, -0.157712445f, -0.31601277f, -0.31601277f,
      -0.111609332f, -0.412802219f, 0.618056655f, -0.412802219f, 2.00498056f, 2.00498056f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 1, 1, False)
    {1,
     1,
     false,
     {-0.433878809f, -0.157712445f, 0.468096405f, -0.157712445f, -0.31601277f, -0.31601277f,
      -0.111609332f, -0.412802219f, 0.618056655f, -0.412802219f, 2.00498056f, 2.00498056f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 1, 1, True)
    {1,
     1,
     true,
     {-0.433878809f, -0.157712445f, 0.468096405f, -0.157712445f, -0.31601277f, -0.31601277f,
      -0.111609332f, -0.412802219f, 0.618056655f, -0.412802219f, 2.00498056f, 2.00498056f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 1, 2, False)
    {1,
     2,
     false,
     {-0.433878809f, -0.157712445f, 0.468096405f, -0.157712445f, -0.31601277f, -0.31601277f,
      -0.111609332f, -0.412802219f, 0.618056655f, -0.412802219f, 2.00498056f, 2.00498056f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 1, 2, True)
    {1,
     2,
     true,
     {-0.433878809f, -0.157712445f, 0.468096405f, -0.157712445f, -0.31601277f, -0.31601277f,
      -0.111609332f, -0.412802219f, 0.618056655f, -0.412802219f, 2.00498056f, 2.00498056f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 2, 0, False)
    {2,
     0,
     false,
     {-0.688187838f, -0.101291366f, 0.0161998328f, -0.17494373f, -0.278190821f, -0.686627567f,
      -0.0630968064f, -0.314027786f, 0.0225359369f, -0.366452605f, 1.90881884f, 1.57241189f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 2, 0, True)
    {2,
     0,
     true,
     {-1.03917646f, 0.319687158f, 0.507540286f, 0.246917844f, -0.100371659f, -0.312628031f,
      0.525880873f, 0.180710435f, 0.618703127f, 0.0677362978f, 2.02025604f, 1.90489817f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 2, 1, False)
    {2,
     1,
     false,
     {-0.598752081f, -0.0927471966f, 0.436024427f, -0.174305156f, -0.267050892f, -0.637381256f,
      -0.046816662f, -0.292295963f, 0.592782319f, -0.364804178f, 1.90940714f, 1.58370757f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 2, 1, True)
    {2,
     1,
     true,
     {-0.882491171f, 0.32267037f, 0.658603907f, 0.253355086f, -0.093700245f, -0.314339995f,
      0.536846161f, 0.236728132f, 0.787506938f, 0.123258762f, 2.01892376f, 1.90757656f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 2, 2, False)
    {2,
     2,
     false,
     {-0.598752081f, -0.0927471966f, 0.453009874f, -0.174305156f, -0.267050892f, -0.637381256f,
      -0.046816662f, -0.292295963f, 0.628558815f, -0.364804178f, 1.90940714f, 1.58370757f}},
    // torch.ops.aten.grid_sampler_2d(x, grid, 2, 2, True)
    {2,
     2,
     true,
     {-0.840647817f, 0.254806221f, 0.367170185f, 0.178838134f, -0.101482756f, -0.311192483f,
      0.339923859f, 0.0308104511f, 0.49668628f, -0.0824561119f, 1.98732221f, 1.89689898f}},
};

TEST(OpGridSamplerTest, EveryModeMatchesTorch) {
  for (const GridCase& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "interpolation " << c.interpolation << " padding "
                                      << c.padding << " align " << c.align_corners);
    HostTensor x = make_tensor<float>({1, 2, 3, 4}, kX);
    HostTensor grid = make_tensor<float>({1, 2, 3, 2}, kGrid);
    HostTensor out = zeros_tensor(ScalarType::Float, {1, 2, 2, 3});
    KernelRunner r;
    ASSERT_EQ(
        r.run("aten::grid_sampler_2d.out", {r.tensor(x), r.tensor(grid), r.i(c.interpolation),
                                            r.i(c.padding), r.b(c.align_corners), r.tensor(out)}),
        Error::Ok);
    expect_close(out.values<float>(), c.expected, 1e-5, 1e-5);
  }
}

TEST(OpGridSamplerTest, Double) {
  std::vector<double> xd(kX.begin(), kX.end()), gd(kGrid.begin(), kGrid.end());
  HostTensor x = make_tensor<double>({1, 2, 3, 4}, xd);
  HostTensor grid = make_tensor<double>({1, 2, 3, 2}, gd);
  HostTensor out = zeros_tensor(ScalarType::Double, {1, 2, 2, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::grid_sampler_2d.out",
                  {r.tensor(x), r.tensor(grid), r.i(2), r.i(2), r.b(false), r.tensor(out)}),
            Error::Ok);
  // torch.ops.aten.grid_sampler_2d(x.double(), grid.double(), 2, 2, False)
  expect_close(out.values<double>(),
               std::vector<double>{-0.598751865, -0.0927465044, 0.453009874, -0.174306095,
                                   -0.267050528, -0.637380837, -0.0468175608, -0.292296185,
                                   0.628558718, -0.364804244, 1.90940734, 1.58370729},
               1e-6, 1e-6);
}

TEST(OpGridSamplerTest, FarAndNonFinitePositionsStayInBounds) {
  // Far positions: torch.ops.aten.grid_sampler_2d(x[:, :1], big, 0, p, False) for
  // big = [[[[1e30, -1e30], [0.25, -3e9]]]], p = 0 (zeros) and 1 (border).
  std::vector<float> x0(kX.begin(), kX.begin() + 12);
  const std::vector<float> expected[2] = {{0.0f, 0.0f}, {-0.433878809f, -0.250578582f}};
  for (int64_t padding : {0, 1}) {
    HostTensor x = make_tensor<float>({1, 1, 3, 4}, x0);
    HostTensor grid = make_tensor<float>({1, 1, 2, 2}, {1e30f, -1e30f, 0.25f, -3e9f});
    HostTensor out = zeros_tensor(ScalarType::Float, {1, 1, 1, 2});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::grid_sampler_2d.out",
                    {r.tensor(x), r.tensor(grid), r.i(0), r.i(padding), r.b(false), r.tensor(out)}),
              Error::Ok);
    expect_close(out.values<float>(), expected[padding], 1e-6, 1e-6);
  }
  // NaN and inf positions: every mode runs without reading out of bounds.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t mode : {0, 1, 2}) {
    for (int64_t padding : {0, 1, 2}) {
      HostTensor x = make_tensor<float>({1, 1, 3, 4}, x0);
      HostTensor grid = make_tensor<float>({1, 1, 2, 2}, {nan, 0.0f, inf, -inf});
      HostTensor out = zeros_tensor(ScalarType::Float, {1, 1, 1, 2});
      KernelRunner r;
      EXPECT_EQ(r.run("aten::grid_sampler_2d.out", {r.tensor(x), r.tensor(grid), r.i(mode),
                                                    r.i(padding), r.b(true), r.tensor(out)}),
                Error::Ok);
    }
  }
}

TEST(OpGridSamplerTest, RefusesBadArguments) {
  HostTensor x = make_tensor<float>({1, 2, 3, 4}, kX);
  HostTensor grid = make_tensor<float>({1, 2, 3, 2}, kGrid);
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 2, 2, 3});
  {
    KernelRunner r;  // interpolation mode 3
    EXPECT_EQ(r.prepare("aten::grid_sampler_2d.out",
                        {r.tensor(x), r.tensor(grid), r.i(3), r.i(0), r.b(false), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {
    KernelRunner r;  // padding mode -1
    EXPECT_EQ(r.prepare("aten::grid_sampler_2d.out",
                        {r.tensor(x), r.tensor(grid), r.i(0), r.i(-1), r.b(false), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {
    HostTensor gd = zeros_tensor(ScalarType::Double, {1, 2, 3, 2});
    KernelRunner r;  // grid dtype differs
    EXPECT_EQ(r.prepare("aten::grid_sampler_2d.out",
                        {r.tensor(x), r.tensor(gd), r.i(0), r.i(0), r.b(false), r.tensor(out)}),
              Error::InvalidType);
  }
  {
    HostTensor g3 = zeros_tensor(ScalarType::Float, {1, 2, 3, 3});
    KernelRunner r;  // last grid dim is not 2
    EXPECT_EQ(r.run("aten::grid_sampler_2d.out",
                    {r.tensor(x), r.tensor(g3), r.i(0), r.i(0), r.b(false), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {
    HostTensor g2 = zeros_tensor(ScalarType::Float, {2, 2, 3, 2});
    KernelRunner r;  // batch sizes differ
    EXPECT_EQ(r.run("aten::grid_sampler_2d.out",
                    {r.tensor(x), r.tensor(g2), r.i(0), r.i(0), r.b(false), r.tensor(out)}),
              Error::InvalidArgument);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
