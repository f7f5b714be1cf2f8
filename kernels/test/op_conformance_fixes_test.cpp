// Conformance fixes in the portable kernels, each checked against PyTorch
// eager (torch 2.15.0, CPU). The generating expression is written above each
// expected literal.
//   * mm / bmm / addmm / linear on integer dtypes: accumulate in the dtype,
//     wrapping modulo 2^bits (two's complement) like PyTorch.
//   * index_put with accumulate=True on Half / BFloat16: every addition is
//     rounded to the dtype (duplicate indices round once per contribution).
//   * grid_sampler_2d in float64: PyTorch's formulas and operation order in
//     the input's type for every interpolation / padding / align_corners
//     mode (to a few ulps: torch's kernel fuses multiply-adds), and its NaN
//     results for non-finite positions.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

// ------------------------------------------------------------ integer matmul

template <typename T>
std::vector<T> run_mm(const char* op, ScalarType dtype, std::vector<int32_t> a_sizes,
                      const std::vector<T>& a, std::vector<int32_t> b_sizes,
                      const std::vector<T>& b, std::vector<int32_t> out_sizes) {
  HostTensor ta = make_tensor<T>(std::move(a_sizes), a);
  HostTensor tb = make_tensor<T>(std::move(b_sizes), b);
  HostTensor out = zeros_tensor(dtype, std::move(out_sizes));
  KernelRunner r;
  EXPECT_EQ(r.run(op, {r.tensor(ta), r.tensor(tb), r.tensor(out)}), Error::Ok) << op;
  return out.values<T>();
}

TEST(ConformanceFixesTest, MmInt8Wraps) {
  // a8 = torch.tensor([[100,-128,127],[-1,50,-77]], dtype=torch.int8)
  // b8 = torch.tensor([[127,-128],[3,99],[-100,45]], dtype=torch.int8)
  // torch.mm(a8, b8)
  EXPECT_EQ(run_mm<int8_t>("aten::mm.out", ScalarType::Char, {2, 3}, {100, -128, 127, -1, 50, -77},
                           {3, 2}, {127, -128, 3, 99, -100, 45}, {2, 2}),
            (std::vector<int8_t>{-128, -45, 43, 77}));
}

TEST(ConformanceFixesTest, MmUint8Wraps) {
  // au = torch.tensor([[200,255,17],[3,128,90]], dtype=torch.uint8)
  // bu = torch.tensor([[250,7],[255,200],[33,129]], dtype=torch.uint8)
  // torch.mm(au, bu)
  EXPECT_EQ(run_mm<uint8_t>("aten::mm.out", ScalarType::Byte, {2, 3}, {200, 255, 17, 3, 128, 90},
                            {3, 2}, {250, 7, 255, 200, 33, 129}, {2, 2}),
            (std::vector<uint8_t>{130, 65, 8, 111}));
}

TEST(ConformanceFixesTest, MmInt16Wraps) {
  // a16 = torch.tensor([[30000,-32768],[1234,-999]], dtype=torch.int16)
  // b16 = torch.tensor([[30000,7],[-32768,32767]], dtype=torch.int16)
  // torch.mm(a16, b16)
  EXPECT_EQ(run_mm<int16_t>("aten::mm.out", ScalarType::Short, {2, 2}, {30000, -32768, 1234, -999},
                            {2, 2}, {30000, 7, -32768, 32767}, {2, 2}),
            (std::vector<int16_t>{-5888, -19376, 24928, -23131}));
}

const std::vector<int32_t> kA32 = {2147483647, -2147483647 - 1, 65536, -3, 46341, 1};
const std::vector<int32_t> kB32 = {2, 65536, -1, 3, 65536, 46341};

TEST(ConformanceFixesTest, MmInt32Wraps) {
  // a32 = torch.tensor([[2147483647,-2147483648,65536],[-3,46341,1]], dtype=torch.int32)
  // b32 = torch.tensor([[2,65536],[-1,3],[65536,46341]], dtype=torch.int32)
  // torch.mm(a32, b32)
  EXPECT_EQ(run_mm<int32_t>("aten::mm.out", ScalarType::Int, {2, 3}, kA32, {3, 2}, kB32, {2, 2}),
            (std::vector<int32_t>{2147483646, 889454592, 19189, -11244}));
}

TEST(ConformanceFixesTest, MmInt64Wraps) {
  // a64 = torch.tensor([[9223372036854775807,-9223372036854775808],[4294967296,3]])
  // b64 = torch.tensor([[2,3],[4294967296,-9223372036854775807]])
  // torch.mm(a64, b64)
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(run_mm<int64_t>("aten::mm.out", ScalarType::Long, {2, 2}, {kMax, kMin, 4294967296, 3},
                            {2, 2}, {2, 3, 4294967296, -kMax}, {2, 2}),
            (std::vector<int64_t>{-2, -3, 21474836480, -9223372023969873917}));
}

TEST(ConformanceFixesTest, BmmInt32Wraps) {
  // ab = (torch.arange(12, dtype=torch.int32) * 123456789).reshape(2, 2, 3)
  // bb = (torch.arange(12, dtype=torch.int32) * -98765 + 7).reshape(2, 3, 2)
  // torch.bmm(ab, bb)
  EXPECT_EQ(run_mm<int32_t>("aten::bmm.out", ScalarType::Int, {2, 2, 3},
                            {0, 123456789, 246913578, 370370367, 493827156, 617283945, 740740734,
                             864197523, 987654312, 1111111101, 1234567890, 1358024679},
                            {2, 3, 2},
                            {7, -98758, -197523, -296288, -395053, -493818, -592583, -691348,
                             -790113, -888878, -987643, -1086408},
                            {2, 2, 2}),
            (std::vector<int32_t>{321502863, 928666140, -1142641656, 1286011452, 1419234979,
                                  1374410622, -2000872442, -224206968}));
}

TEST(ConformanceFixesTest, BmmInt8Wraps) {
  // torch.bmm(torch.tensor([[[100,-100],[7,8]]], dtype=torch.int8),
  //           torch.tensor([[[100,3],[-128,127]]], dtype=torch.int8))
  EXPECT_EQ(run_mm<int8_t>("aten::bmm.out", ScalarType::Char, {1, 2, 2}, {100, -100, 7, 8},
                           {1, 2, 2}, {100, 3, -128, 127}, {1, 2, 2}),
            (std::vector<int8_t>{16, -112, -68, 13}));
}

TEST(ConformanceFixesTest, MatmulRefusesBoolAtLoad) {
  // torch.mm on bool: "addmm_impl_cpu_" not implemented for 'Bool'
  HostTensor a = zeros_tensor(ScalarType::Bool, {2, 2});
  HostTensor out = zeros_tensor(ScalarType::Bool, {2, 2});
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::mm.out", {r.tensor(a), r.tensor(a), r.tensor(out)}),
            Error::InvalidType);
  // Mixed integer dtypes are refused too (torch: "expected m1 and m2 to have the same dtype").
  HostTensor i = zeros_tensor(ScalarType::Int, {2, 2});
  HostTensor l = zeros_tensor(ScalarType::Long, {2, 2});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::mm.out", {r2.tensor(i), r2.tensor(l), r2.tensor(l)}),
            Error::InvalidType);
}

// addmm(s, a32, b32) with Scalar beta / alpha given as `beta` and `alpha`.
std::vector<int32_t> run_addmm_int32(EValue* (*make_beta)(KernelRunner&),
                                     EValue* (*make_alpha)(KernelRunner&)) {
  HostTensor s = make_tensor<int32_t>({2}, {1000000000, -7});
  HostTensor a = make_tensor<int32_t>({2, 3}, kA32);
  HostTensor b = make_tensor<int32_t>({3, 2}, kB32);
  HostTensor out = zeros_tensor(ScalarType::Int, {2, 2});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::addmm.out", {r.tensor(s), r.tensor(a), r.tensor(b), make_beta(r),
                                      make_alpha(r), r.tensor(out)}),
            Error::Ok);
  return out.values<int32_t>();
}

TEST(ConformanceFixesTest, AddmmInt32WrapsAndTruncatesFloatScalars) {
  // s = torch.tensor([1000000000, -7], dtype=torch.int32)
  // torch.addmm(s, a32, b32, beta=3, alpha=5)
  EXPECT_EQ(run_addmm_int32([](KernelRunner& r) { return r.i(3); },
                            [](KernelRunner& r) { return r.i(5); }),
            (std::vector<int32_t>{852516342, 152305643, -1294871351, -56241}));
  // torch.addmm(s, a32, b32, beta=0.5, alpha=2.9): beta -> 0 (self ignored), alpha -> 2
  EXPECT_EQ(run_addmm_int32([](KernelRunner& r) { return r.d(0.5); },
                            [](KernelRunner& r) { return r.d(2.9); }),
            (std::vector<int32_t>{-4, 1778909184, 38378, -22488}));
  // torch.addmm(s, a32, b32, beta=True, alpha=-1)
  EXPECT_EQ(run_addmm_int32([](KernelRunner& r) { return r.b(true); },
                            [](KernelRunner& r) { return r.i(-1); }),
            (std::vector<int32_t>{-1147483646, -889454599, 999980811, 11237}));
}

TEST(ConformanceFixesTest, AddmmUint8Wraps) {
  // su = torch.tensor([[250],[1]], dtype=torch.uint8)
  // torch.addmm(su, au, bu, beta=2, alpha=3)
  HostTensor s = make_tensor<uint8_t>({2, 1}, {250, 1});
  HostTensor a = make_tensor<uint8_t>({2, 3}, {200, 255, 17, 3, 128, 90});
  HostTensor b = make_tensor<uint8_t>({3, 2}, {250, 7, 255, 200, 33, 129});
  HostTensor out = zeros_tensor(ScalarType::Byte, {2, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::addmm.out",
                  {r.tensor(s), r.tensor(a), r.tensor(b), r.i(2), r.i(3), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<uint8_t>(), (std::vector<uint8_t>{122, 183, 26, 79}));
}

TEST(ConformanceFixesTest, LinearInt32WrapsOnBothPaths) {
  // x = torch.tensor([[2147483647,5,-3],[1,-2147483648,100]], dtype=torch.int32)
  // w = torch.tensor([[2,1,0],[-1,65536,65536],[7,7,7],[0,0,-1]], dtype=torch.int32)
  // bias = torch.tensor([1,2147483647,-5,0], dtype=torch.int32)
  const std::vector<int32_t> x = {2147483647, 5, -3, 1, -2147483647 - 1, 100};
  const std::vector<int32_t> w = {2, 1, 0, -1, 65536, 65536, 7, 7, 7, 0, 0, -1};
  HostTensor tw = make_tensor<int32_t>({4, 3}, w);
  HostTensor tb = make_tensor<int32_t>({4}, {1, 2147483647, -5, 0});
  {  // two rows: the transposed-weight gemm path.  F.linear(x, w, bias)
    HostTensor tx = make_tensor<int32_t>({2, 3}, x);
    HostTensor out = zeros_tensor(ScalarType::Int, {2, 4});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::linear.out", {r.tensor(tx), r.tensor(tw), r.tensor(tb), r.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{4, 131072, -2147483646, 3, -2147483645,
                                                           -2140930050, -2147482946, -100}));
  }
  {  // one row: the dot-product path.  F.linear(x[1], w, bias)
    HostTensor tx = make_tensor<int32_t>({3}, {1, -2147483647 - 1, 100});
    HostTensor out = zeros_tensor(ScalarType::Int, {4});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::linear.out", {r.tensor(tx), r.tensor(tw), r.tensor(tb), r.tensor(out)}),
              Error::Ok);
    EXPECT_EQ(out.values<int32_t>(),
              (std::vector<int32_t>{-2147483645, -2140930050, -2147482946, -100}));
  }
}

TEST(ConformanceFixesTest, LinearInt8NoBias) {
  // x8 = torch.tensor([[100,-100,50]], dtype=torch.int8)
  // w8 = torch.tensor([[100,2,3],[-128,-128,-128]], dtype=torch.int8)
  // F.linear(x8.expand(3, 3).contiguous(), w8)
  HostTensor x = make_tensor<int8_t>({3, 3}, {100, -100, 50, 100, -100, 50, 100, -100, 50});
  HostTensor w = make_tensor<int8_t>({2, 3}, {100, 2, 3, -128, -128, -128});
  HostTensor out = zeros_tensor(ScalarType::Char, {3, 2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::linear.out", {r.tensor(x), r.tensor(w), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{-34, 0, -34, 0, -34, 0}));
}

// ---------------------------------------------- index_put accumulate, 16-bit

HostTensor bits_tensor(ScalarType dtype, std::vector<int32_t> sizes,
                       const std::vector<uint16_t>& bits) {
  Result<HostTensor> t =
      HostTensor::from_bytes(dtype, std::move(sizes), bits.data(), bits.size() * sizeof(uint16_t),
                             {}, ShapeDynamism::DynamicBound);
  EXPECT_TRUE(t.ok());
  return *std::move(t);
}

std::vector<uint16_t> put_acc(ScalarType dtype, std::vector<int32_t> self_sizes,
                              const std::vector<uint16_t>& self, std::vector<HostTensor*> indices,
                              std::vector<int32_t> values_sizes,
                              const std::vector<uint16_t>& values) {
  HostTensor s = bits_tensor(dtype, self_sizes, self);
  HostTensor v = bits_tensor(dtype, std::move(values_sizes), values);
  HostTensor out = zeros_tensor(dtype, std::move(self_sizes));
  KernelRunner r;
  EXPECT_EQ(r.run("aten::index_put.out", {r.tensor(s), r.tensor_list(std::move(indices), true),
                                          r.tensor(v), r.b(true), r.tensor(out)}),
            Error::Ok);
  return out.values<uint16_t>();
}

// idx = torch.tensor([0,0,0,1,1,1,2,2,0,3,-1])
const std::vector<int64_t> kDupIndex = {0, 0, 0, 1, 1, 1, 2, 2, 0, 3, -1};

TEST(ConformanceFixesTest, IndexPutAccumulateHalfRoundsEveryAddition) {
  // s = torch.tensor([1.0, 2048.0, -0.5, 3.0], dtype=torch.float16)
  // v = torch.tensor([4e-4,4e-4,4e-4,1,1,1,0.3,0.3,4e-4,1e-3,-7], dtype=torch.float16)
  // torch.ops.aten.index_put.default(s, [idx], v, True).view(torch.int16)
  //   = [1.0, 2048.0, 0.10009765625, -3.998046875]; accumulating in float and
  //   rounding once would give [15362, 26626, ...] instead.
  HostTensor idx = make_tensor<int64_t>({11}, kDupIndex);
  EXPECT_EQ(put_acc(ScalarType::Half, {4}, {15360, 26624, 47104, 16896}, {&idx}, {11},
                    {3726, 3726, 3726, 15360, 15360, 15360, 13517, 13517, 3726, 5145, 50944}),
            (std::vector<uint16_t>{15360, 26624, 11880, 50175}));
}

TEST(ConformanceFixesTest, IndexPutAccumulateBFloat16RoundsEveryAddition) {
  // s = torch.tensor([1.0, 2048.0, -0.5, 3.0], dtype=torch.bfloat16)
  // v = torch.tensor([3e-3,3e-3,3e-3,8,8,8,0.3,0.3,3e-3,1e-3,-7], dtype=torch.bfloat16)
  // torch.ops.aten.index_put.default(s, [idx], v, True).view(torch.int16)
  HostTensor idx = make_tensor<int64_t>({11}, kDupIndex);
  EXPECT_EQ(put_acc(ScalarType::BFloat16, {4}, {16256, 17664, 48896, 16448}, {&idx}, {11},
                    {15173, 15173, 15173, 16640, 16640, 16640, 16026, 16026, 15173, 14979, 49376}),
            (std::vector<uint16_t>{16256, 17664, 15824, 49280}));
}

TEST(ConformanceFixesTest, IndexPutAccumulate16BitBroadcastIndices) {
  // s2 = torch.tensor([[1.,2.,3.],[4.,5.,6.]], dtype=dt); v2 = torch.tensor([.1,.2,.3], dtype=dt)
  // i0 = torch.tensor([[0],[1],[0]]); i1 = torch.tensor([[2,2,0]])
  // torch.ops.aten.index_put.default(s2, [i0, i1], v2, True).view(torch.int16)
  HostTensor i0 = make_tensor<int64_t>({3, 1}, {0, 1, 0});
  HostTensor i1 = make_tensor<int64_t>({1, 3}, {2, 2, 0});
  // dt = torch.float16
  EXPECT_EQ(put_acc(ScalarType::Half, {2, 3}, {15360, 16384, 16896, 17408, 17664, 17920},
                    {&i0, &i1}, {3}, {11878, 12902, 13517}),
            (std::vector<uint16_t>{15974, 16384, 17202, 17485, 17664, 17997}));
  // dt = torch.bfloat16
  EXPECT_EQ(put_acc(ScalarType::BFloat16, {2, 3}, {16256, 16384, 16448, 16512, 16544, 16576},
                    {&i0, &i1}, {3}, {15821, 15949, 16026}),
            (std::vector<uint16_t>{16332, 16384, 16486, 16522, 16544, 16585}));
}

// --------------------------------------------------- grid_sampler_2d, float64

// torch.manual_seed(3); x = torch.randn(1, 2, 3, 4, dtype=torch.float64)
const std::vector<double> kGsX = {
    -0.21774879177876416, 0.1466771298110492,  0.6690811213485476,  -0.5141241139283437,
    -1.5859705131070332,  -0.7477303158580806, 0.653905739227061,   0.9104898970780404,
    1.0784352439814244,   0.34363379791442283, 0.7198251676658504,  0.8306180904619974,
    0.5086538773635347,   -1.5265849021757647, -1.9011297009275108, 0.2482403276470407,
    0.028752867895017985, 0.24243710319485537, 0.7841722963522199,  -0.9984183369540185,
    1.1860480205849184,   0.4136633498764265,  0.18411092659478248, -0.15401259447374294};
// g = torch.rand(1, 2, 5, 2, dtype=torch.float64) * 3.2 - 1.6 (after x, same seed)
const std::vector<double> kGsGrid = {
    0.1689293865510504,  -0.35320625586328624, -0.33770048580373535, 0.29312012230610485,
    -0.5064199010759698, -0.4049550435085052,  0.4670179307129678,   0.266044328655634,
    -0.6465951932911254, -1.3887221142576391,  0.5772060555702061,   -0.24445791050750465,
    0.7801297623308714,  0.46638441869163083,  -0.37384880691461086, 0.7580510899970379,
    -0.5049400084005442, -0.5239556009946058,  -0.45342436468165137, -0.18722180742716432};

struct GsCase {
  int64_t mode, padding;
  bool align;
  std::vector<double> expected;  // [1, 2, 2, 5]
};

const GsCase kGsCases[] = {
    // torch.ops.aten.grid_sampler_2d(x, g, 0, 0, False)
    {0,
     0,
     false,
     {0.5102123109615053,
      -0.2935937943320973,
      -0.48672050690331164,
      0.7663263216563275,
      0.0,
      0.481884041726063,
      0.8031148477885153,
      0.4535890764474904,
      -0.28231513841409067,
      -0.7834520787571354,
      -0.6476514443373639,
      0.35628742905026983,
      -0.2411356578352553,
      0.021194597079686826,
      0.0,
      -0.42351128640252717,
      -0.38312449995779235,
      0.5220524040400202,
      -0.3556348765142656,
      -0.08434538343384425}},
    // torch.ops.aten.grid_sampler_2d(x, g, 0, 0, True)
    {0, 0, true, {0.3901975639248645,   -0.43030014093124447,  -0.5533516045108098,
                  0.7151174311334413,   -0.015015419722042215, 0.6227232397293069,
                  0.8110411375241842,   0.10110565982361726,   -0.4309679417070737,
                  -0.7152958134350742,  -0.21807776327758102,  0.29312057471374786,
                  -0.2929678785995328,  0.34413294414513657,   -0.3485756357435598,
                  -0.17274358055643194, -0.23887498442382946,  0.40467647317538896,
                  -0.4361409108464193,  -0.051408703867511625}},
    // torch.ops.aten.grid_sampler_2d(x, g, 0, 1, False)
    {0, 1, false, {0.5102123109615053,   -0.2935937943320973,  -0.48672050690331164,
                   0.7663263216563275,   -0.14238200781536786, 0.481884041726063,
                   0.8546134479303301,   0.5256423627434808,   -0.28231513841409067,
                   -0.7834520787571354,  -0.6476514443373639,  0.35628742905026983,
                   -0.2411356578352553,  0.021194597079686826, 0.08774693215420036,
                   -0.42351128640252717, -0.40769181493421114, 0.6049811897691891,
                   -0.3556348765142656,  -0.08434538343384425}},
    // torch.ops.aten.grid_sampler_2d(x, g, 0, 1, True)
    {0, 1, true, {0.3901975639248645,   -0.43030014093124447,  -0.5533516045108098,
                  0.7151174311334413,   -0.024563983210036916, 0.6227232397293069,
                  0.8110411375241842,   0.10110565982361726,   -0.4309679417070737,
                  -0.7152958134350742,  -0.21807776327758102,  0.29312057471374786,
                  -0.2929678785995328,  0.34413294414513657,   -0.5702408738707033,
                  -0.17274358055643194, -0.23887498442382946,  0.40467647317538896,
                  -0.4361409108464193,  -0.051408703867511625}},
    // torch.ops.aten.grid_sampler_2d(x, g, 0, 2, False)
    {0, 2, false, {0.5102123109615053,   -0.2935937943320973,  -0.48672050690331164,
                   0.7663263216563275,   -0.2479169418572838,  0.481884041726063,
                   0.85461344793033,     0.5256423627434808,   -0.28231513841409067,
                   -0.7834520787571354,  -0.6476514443373639,  0.35628742905026983,
                   -0.2411356578352553,  0.021194597079686826, 0.08651712589861706,
                   -0.42351128640252717, -0.40769181493421097, 0.6049811897691891,
                   -0.3556348765142656,  -0.08434538343384425}},
    // torch.ops.aten.grid_sampler_2d(x, g, 0, 2, True)
    {0, 2, true, {0.3901975639248645,   -0.43030014093124447, -0.5533516045108098,
                  0.7151174311334413,   -0.45878577121495345, 0.6227232397293069,
                  0.8110411375241842,   0.10110565982361726,  -0.4309679417070737,
                  -0.7152958134350742,  -0.21807776327758102, 0.29312057471374786,
                  -0.2929678785995328,  0.34413294414513657,  -0.2933660473739782,
                  -0.17274358055643194, -0.23887498442382946, 0.40467647317538896,
                  -0.4361409108464193,  -0.051408703867511625}},
    // torch.ops.aten.grid_sampler_2d(x, g, 1, 0, False)
    {1,
     0,
     false,
     {0.6690811213485476,
      -0.7477303158580806,
      -0.21774879177876416,
      0.653905739227061,
      0.0,
      0.9104898970780404,
      0.8306180904619974,
      0.34363379791442283,
      -0.21774879177876416,
      -0.7477303158580806,
      -1.9011297009275108,
      0.24243710319485537,
      0.5086538773635347,
      0.7841722963522199,
      0.0,
      -0.9984183369540185,
      -0.15401259447374294,
      0.4136633498764265,
      0.5086538773635347,
      0.24243710319485537}},
    // torch.ops.aten.grid_sampler_2d(x, g, 1, 0, True)
    {1, 0, true, {0.653905739227061,   -0.7477303158580806, -0.7477303158580806,
                  0.653905739227061,   0.1466771298110492,  0.653905739227061,
                  0.9104898970780404,  0.34363379791442283, 0.1466771298110492,
                  -0.7477303158580806, 0.7841722963522199,  0.24243710319485537,
                  0.24243710319485537, 0.7841722963522199,  -1.5265849021757647,
                  0.7841722963522199,  -0.9984183369540185, 0.4136633498764265,
                  -1.5265849021757647, 0.24243710319485537}},
    // torch.ops.aten.grid_sampler_2d(x, g, 1, 1, False)
    {1, 1, false, {0.6690811213485476,  -0.7477303158580806,  -0.21774879177876416,
                   0.653905739227061,   -0.21774879177876416, 0.9104898970780404,
                   0.8306180904619974,  0.34363379791442283,  -0.21774879177876416,
                   -0.7477303158580806, -1.9011297009275108,  0.24243710319485537,
                   0.5086538773635347,  0.7841722963522199,   0.5086538773635347,
                   -0.9984183369540185, -0.15401259447374294, 0.4136633498764265,
                   0.5086538773635347,  0.24243710319485537}},
    // torch.ops.aten.grid_sampler_2d(x, g, 1, 1, True)
    {1, 1, true, {0.653905739227061,   -0.7477303158580806, -0.7477303158580806,
                  0.653905739227061,   0.1466771298110492,  0.653905739227061,
                  0.9104898970780404,  0.34363379791442283, 0.1466771298110492,
                  -0.7477303158580806, 0.7841722963522199,  0.24243710319485537,
                  0.24243710319485537, 0.7841722963522199,  -1.5265849021757647,
                  0.7841722963522199,  -0.9984183369540185, 0.4136633498764265,
                  -1.5265849021757647, 0.24243710319485537}},
    // torch.ops.aten.grid_sampler_2d(x, g, 1, 2, False)
    {1, 2, false, {0.6690811213485476,  -0.7477303158580806,  -0.21774879177876416,
                   0.653905739227061,   -0.21774879177876416, 0.9104898970780404,
                   0.8306180904619974,  0.34363379791442283,  -0.21774879177876416,
                   -0.7477303158580806, -1.9011297009275108,  0.24243710319485537,
                   0.5086538773635347,  0.7841722963522199,   0.5086538773635347,
                   -0.9984183369540185, -0.15401259447374294, 0.4136633498764265,
                   0.5086538773635347,  0.24243710319485537}},
    // torch.ops.aten.grid_sampler_2d(x, g, 1, 2, True)
    {1, 2, true, {0.653905739227061,   -0.7477303158580806, -0.7477303158580806,
                  0.653905739227061,   0.1466771298110492,  0.653905739227061,
                  0.9104898970780404,  0.34363379791442283, 0.1466771298110492,
                  -0.7477303158580806, 0.7841722963522199,  0.24243710319485537,
                  0.24243710319485537, 0.7841722963522199,  -1.5265849021757647,
                  0.7841722963522199,  -0.9984183369540185, 0.4136633498764265,
                  -1.5265849021757647, 0.24243710319485537}},
    // torch.ops.aten.grid_sampler_2d(x, g, 2, 0, False)
    {2, 0, false, {0.6380297385128303,   -0.4689973835403304,  -0.7919152201610485,
                   1.0892834989350055,   0.009727802668670366, 0.6028854207616992,
                   0.9728694286045136,   0.5734930770385609,   -0.43590913802115916,
                   -1.2392513393902436,  -0.8480258913032007,  0.5251542147289459,
                   -0.3167967888017942,  0.11149068893575265,  -0.010260578233752456,
                   -0.5531642203133563,  -0.4822478114360085,  0.6159432447235238,
                   -0.37344913041062167, -0.19786857549372974}},
    // torch.ops.aten.grid_sampler_2d(x, g, 2, 0, True)
    {2, 0, true, {0.4729344958985472,   -0.5419692204969148,  -0.881955024277162,
                  0.9106768670356384,   0.08533199309990791,  0.8272002793136377,
                  1.15948564857223,     0.10787496749517313,  -0.6948078348272578,
                  -0.9988965801107733,  -0.20163069983268303, 0.4993094664742884,
                  -0.43527858968404326, 0.6246142083853501,   -0.37386759396819175,
                  -0.1642770805159228,  -0.3368374422813969,  0.5103537572628974,
                  -0.6021854597988597,  -0.11975095679846288}},
    // torch.ops.aten.grid_sampler_2d(x, g, 2, 1, False)
    {2, 1, false, {0.568403332923051,    -0.49395858489452127, -0.6911995257520225,
                   0.9439985727564923,   -0.16443738594588395, 0.5661089284646743,
                   0.929169916921119,    0.5876161826963245,   -0.37262860167212475,
                   -1.1241965102336144,  -0.6435098882865765,  0.4693936796624767,
                   -0.29728071385658555, 0.17569952933993574,  0.1462189099776594,
                   -0.4517700217797943,  -0.4860552647181933,  0.647199258606891,
                   -0.37035873978213485, -0.1724595611117805}},
    // torch.ops.aten.grid_sampler_2d(x, g, 2, 1, True)
    {2, 1, true, {0.43122032034718694,  -0.557673720330217,   -0.831768753023551,
                  0.8545037430715332,   0.056047231688201235, 0.779275072439515,
                  0.9675344419585618,   0.06845690771449686,  -0.6539023512631678,
                  -0.9675907431570838,  -0.07374667894308563, 0.4802309785012717,
                  -0.3665909696036986,  0.6431227998001603,   -0.6094057831272726,
                  -0.07287816646067202, -0.24864231790645472, 0.45966258659795345,
                  -0.511618014511788,   -0.09487891302784077}},
    // torch.ops.aten.grid_sampler_2d(x, g, 2, 2, False)
    {2, 2, false, {0.568403332923051,    -0.49395858489452127, -0.6911995257520225,
                   0.9439985727564923,   -0.2634765808128672,  0.5661089284646743,
                   0.9297322336605908,   0.6064877188312823,   -0.37262860167212475,
                   -1.1241965102336144,  -0.6435098882865765,  0.4693936796624767,
                   -0.29728071385658555, 0.17569952933993574,  0.1352917306746035,
                   -0.4517700217797943,  -0.48843023662885643, 0.652955991906982,
                   -0.37035873978213485, -0.1724595611117805}},
    // torch.ops.aten.grid_sampler_2d(x, g, 2, 2, True)
    {2, 2, true, {0.45216986893746813, -0.507392651028859,   -0.7806715060609588,
                  0.8611547638564108,  -0.5815175129623258,  0.7533866519131706,
                  0.9951906536719177,  0.19587527142302028,  -0.571359242611198,
                  -0.9630789465016999, -0.2535435306455115,  0.4884182519671023,
                  -0.4226530973287598, 0.5834465527245496,   -0.3018091087404644,
                  -0.179934639971182,  -0.37132541723892826, 0.4872332943961785,
                  -0.5830788714460656, -0.12117539920568329}},
};

TEST(ConformanceFixesTest, GridSamplerFloat64MatchesTorchInEveryMode) {
  for (const GsCase& c : kGsCases) {
    SCOPED_TRACE(::testing::Message()
                 << "mode " << c.mode << " padding " << c.padding << " align " << c.align);
    HostTensor x = make_tensor<double>({1, 2, 3, 4}, kGsX);
    HostTensor g = make_tensor<double>({1, 2, 5, 2}, kGsGrid);
    HostTensor out = zeros_tensor(ScalarType::Double, {1, 2, 2, 5});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::grid_sampler_2d.out", {r.tensor(x), r.tensor(g), r.i(c.mode),
                                                  r.i(c.padding), r.b(c.align), r.tensor(out)}),
              Error::Ok);
    // Not bit for bit: torch's vectorized CPU kernel is compiled with FMA
    // contraction (its (g + 1) * scale - 0.5 and the weighted sum of the taps
    // become fused multiply-adds; reproduced exactly in Python with
    // exact-rational fma), this build keeps every product rounded
    // (-ffp-contract=off). The difference is a few ulps.
    expect_close(out.values<double>(), c.expected, 1e-15, 1e-15);
  }
}

TEST(ConformanceFixesTest, GridSamplerFloat64NonFinitePositions) {
  // x = torch.arange(20., dtype=torch.float64).reshape(1, 1, 4, 5)
  // g = torch.tensor([[[[nan, 0.], [inf, 0.], [1e30, 0.], [-1e30, 0.3], [0.3, 0.2]]]])
  // torch.ops.aten.grid_sampler_2d(x, g, mode, padding, False)
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xv(20);
  for (int i = 0; i < 20; ++i) xv[i] = i;
  const std::vector<double> gv = {nan, 0.0, inf, 0.0, 1e30, 0.0, -1e30, 0.3, 0.3, 0.2};
  const std::vector<double> expected[3][3] = {
      {{nan, nan, 0.0, 0.0, 12.25},
       {7.5, 11.5, 11.5, 10.500000000000002, 12.25},
       {7.5, 7.5, 7.5, 10.500000000000002, 12.25}},
      {{0.0, 0.0, 0.0, 0.0, 13.0}, {10.0, 14.0, 14.0, 10.0, 13.0}, {10.0, 10.0, 10.0, 10.0, 13.0}},
      {{nan, nan, 0.0, 0.0, 12.023125000000002},
       {nan, nan, 11.5, 10.713750000000019, 12.023125000000002},
       {nan, nan, 7.5, 10.713750000000019, 12.023125000000002}},
  };
  for (int64_t mode = 0; mode < 3; ++mode) {
    for (int64_t padding = 0; padding < 3; ++padding) {
      SCOPED_TRACE(::testing::Message() << "mode " << mode << " padding " << padding);
      HostTensor x = make_tensor<double>({1, 1, 4, 5}, xv);
      HostTensor g = make_tensor<double>({1, 1, 5, 2}, gv);
      HostTensor out = zeros_tensor(ScalarType::Double, {1, 1, 1, 5});
      KernelRunner r;
      ASSERT_EQ(r.run("aten::grid_sampler_2d.out", {r.tensor(x), r.tensor(g), r.i(mode),
                                                    r.i(padding), r.b(false), r.tensor(out)}),
                Error::Ok);
      const std::vector<double> got = out.values<double>();
      const std::vector<double>& want = expected[mode][padding];
      for (size_t k = 0; k < want.size(); ++k) {
        if (std::isnan(want[k])) {
          EXPECT_TRUE(std::isnan(got[k])) << "element " << k << ": " << got[k];
        } else {
          EXPECT_NEAR(got[k], want[k], 1e-13) << "element " << k;
        }
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr

namespace etr {
namespace testing {
namespace {

// ------------------------------------------------- hardtanh on integer inputs

// PyTorch truncates the bounds to integers and clamps without wrapping them
// into the input's type: uint8 with min -1.5 clamps at -1, not at 255.
TEST(ConformanceFixesTest, HardtanhIntegerBoundsDoNotWrap) {
  // torch.ops.aten.hardtanh(torch.tensor([0,1,2,3,5,200,255], dtype=torch.uint8), -1.5, 2.5)
  HostTensor u = make_tensor<uint8_t>({7}, {0, 1, 2, 3, 5, 200, 255});
  HostTensor uo = zeros_tensor(ScalarType::Byte, {7});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::hardtanh.out", {r.tensor(u), r.d(-1.5), r.d(2.5), r.tensor(uo)}),
            Error::Ok);
  EXPECT_EQ(uo.values<uint8_t>(), (std::vector<uint8_t>{0, 1, 2, 2, 2, 2, 2}));
  // torch.ops.aten.hardtanh(torch.tensor([-100,-3,0,3,100], dtype=torch.int8), -2.5, 300.0)
  HostTensor s = make_tensor<int8_t>({5}, {-100, -3, 0, 3, 100});
  HostTensor so = zeros_tensor(ScalarType::Char, {5});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::hardtanh.out", {r2.tensor(s), r2.d(-2.5), r2.d(300.0), r2.tensor(so)}),
            Error::Ok);
  EXPECT_EQ(so.values<int8_t>(), (std::vector<int8_t>{-2, -2, 0, 3, 100}));
}

// --------------------------------------------- max pooling on integer inputs

TEST(ConformanceFixesTest, MaxPool2dIntegerDtypes) {
  // x = torch.tensor([[[[-5,3,0],[7,-128,7],[2,2,-1]]]], dtype=torch.int8)
  // torch.ops.aten.max_pool2d_with_indices(x, [2,2], [1,1], [1,1], [1,1], False)
  HostTensor x = make_tensor<int8_t>({1, 1, 3, 3}, {-5, 3, 0, 7, -128, 7, 2, 2, -1});
  HostTensor out = zeros_tensor(ScalarType::Char, {1, 1, 4, 4});
  HostTensor idx = zeros_tensor(ScalarType::Long, {1, 1, 4, 4});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::max_pool2d_with_indices.out",
                  {r.tensor(x), r.int_list({2, 2}), r.int_list({1, 1}), r.int_list({1, 1}),
                   r.int_list({1, 1}), r.b(false), r.tensor(out), r.tensor(idx)}),
            Error::Ok);
  EXPECT_EQ(out.values<int8_t>(),
            (std::vector<int8_t>{-5, 3, 3, 0, 7, 7, 7, 7, 7, 7, 7, 7, 2, 2, 2, -1}));
  EXPECT_EQ(idx.values<int64_t>(),
            (std::vector<int64_t>{0, 1, 1, 2, 3, 3, 5, 5, 3, 3, 5, 5, 6, 6, 7, 8}));
  // x = torch.tensor([[[[0,255,3],[255,1,9]]]], dtype=torch.uint8)
  // torch.ops.aten.max_pool2d_with_indices(x, [2,2], [1,1], [0,0], [1,1], False)
  HostTensor u = make_tensor<uint8_t>({1, 1, 2, 3}, {0, 255, 3, 255, 1, 9});
  HostTensor uo = zeros_tensor(ScalarType::Byte, {1, 1, 1, 2});
  HostTensor ui = zeros_tensor(ScalarType::Long, {1, 1, 1, 2});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::max_pool2d_with_indices.out",
                   {r2.tensor(u), r2.int_list({2, 2}), r2.int_list({1, 1}), r2.int_list({0, 0}),
                    r2.int_list({1, 1}), r2.b(false), r2.tensor(uo), r2.tensor(ui)}),
            Error::Ok);
  EXPECT_EQ(uo.values<uint8_t>(), (std::vector<uint8_t>{255, 255}));
  EXPECT_EQ(ui.values<int64_t>(), (std::vector<int64_t>{1, 1}));
}

}  // namespace
}  // namespace testing
}  // namespace etr

namespace etr {
namespace testing {
namespace {

// ------------------------------------------------- logit in Half / BFloat16

// PyTorch rounds eps to the dtype and computes 1 - eps in it (bfloat16:
// 1 - 1e-3 rounds to 1.0, so the upper clamp gives inf), then the logit in
// float, rounded once. Bit patterns from
// x = torch.tensor([0, 5e-4, 0.3, 0.999, 1, 1.2, -0.1, nan]).to(dtype);
// torch.logit(x, 1e-3).view(torch.int16)
TEST(ConformanceFixesTest, LogitReducedFloatRoundsItsBounds) {
  struct Case {
    ScalarType dtype;
    std::vector<uint16_t> x, want;
  };
  const Case cases[] = {
      {ScalarType::Half,
       {0, 4121, 13517, 15358, 15360, 15565, 44646, 32256},
       {50920, 50920, 47816, 18158, 18158, 18158, 50920, 0}},
      {ScalarType::BFloat16,
       {0, 14851, 16026, 16256, 16256, 16282, 48589, 65535},
       {49373, 49373, 48984, 32640, 32640, 32640, 49373, 0}},
  };
  for (const Case& c : cases) {
    Result<HostTensor> x = HostTensor::from_bytes(c.dtype, {8}, c.x.data(), c.x.size() * 2);
    ASSERT_TRUE(x.ok());
    HostTensor out = zeros_tensor(c.dtype, {8});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::logit.out", {r.tensor(*x), r.d(1e-3), r.tensor(out)}), Error::Ok);
    const std::vector<uint16_t> got = out.values<uint16_t>();
    ASSERT_EQ(got.size(), 8u);
    for (size_t i = 0; i < 7; ++i) EXPECT_EQ(got[i], c.want[i]) << to_string(c.dtype) << " " << i;
    // NaN stays NaN (exponent all ones, mantissa non-zero).
    const uint16_t exp_mask = c.dtype == ScalarType::Half ? 0x7c00 : 0x7f80;
    EXPECT_EQ(got[7] & exp_mask, exp_mask);
    EXPECT_NE(got[7] & static_cast<uint16_t>(~exp_mask & 0x7fff), 0);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr

namespace etr {
namespace testing {
namespace {

// ------------------------------------------------------------ topk ties

// Tied values come out with PyTorch's indices (its CPU kernel's algorithms
// and value-only comparison), torch 2.15.0 eager:
// torch.topk(torch.tensor([6,14,6,4,9], dtype=torch.int16), 3, largest=False)
//   -> [4, 6, 6], [3, 2, 0]
// torch.topk(torch.tensor([5,1,5,3,5,5,2,5], dtype=torch.uint8), 4) -> [5]*4, [5, 0, 4, 7]
// torch.topk(torch.arange(70) % 3, 1) -> [2], [2] (the partial-sort path: k * 64 <= n)
TEST(ConformanceFixesTest, TopkTiesFollowPyTorch) {
  auto run = [](HostTensor& x, ScalarType dtype, int64_t k, bool largest, HostTensor* values,
                HostTensor* indices) {
    *values = zeros_tensor(dtype, {static_cast<int32_t>(k)});
    *indices = zeros_tensor(ScalarType::Long, {static_cast<int32_t>(k)});
    KernelRunner r;
    return r.run("aten::topk.values", {r.tensor(x), r.i(k), r.i(0), r.b(largest), r.b(true),
                                       r.tensor(*values), r.tensor(*indices)});
  };
  HostTensor v = zeros_tensor(ScalarType::Long, {1}), i = zeros_tensor(ScalarType::Long, {1});
  HostTensor a = make_tensor<int16_t>({5}, {6, 14, 6, 4, 9});
  ASSERT_EQ(run(a, ScalarType::Short, 3, false, &v, &i), Error::Ok);
  EXPECT_EQ(v.values<int16_t>(), (std::vector<int16_t>{4, 6, 6}));
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{3, 2, 0}));
  HostTensor b = make_tensor<uint8_t>({8}, {5, 1, 5, 3, 5, 5, 2, 5});
  ASSERT_EQ(run(b, ScalarType::Byte, 4, true, &v, &i), Error::Ok);
  EXPECT_EQ(v.values<uint8_t>(), (std::vector<uint8_t>{5, 5, 5, 5}));
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{5, 0, 4, 7}));
  std::vector<int64_t> cv(70);
  for (int j = 0; j < 70; ++j) cv[j] = j % 3;
  HostTensor c = make_tensor<int64_t>({70}, cv);
  ASSERT_EQ(run(c, ScalarType::Long, 1, true, &v, &i), Error::Ok);
  EXPECT_EQ(v.values<int64_t>(), (std::vector<int64_t>{2}));
  EXPECT_EQ(i.values<int64_t>(), (std::vector<int64_t>{2}));
}

// max / min over a dim take Bool (argmax / argmin do not), torch 2.15.0:
// b = torch.tensor([[True,False,True],[False,False,True]])
// torch.max(b, 1) -> [True, True], [0, 2]; torch.min(b, 0) -> [False, False, True], [1, 0, 0]
TEST(ConformanceFixesTest, MaxMinOverADimTakeBool) {
  HostTensor b = make_tensor<bool>({2, 3}, {true, false, true, false, false, true});
  HostTensor mv = zeros_tensor(ScalarType::Bool, {2});
  HostTensor mi = zeros_tensor(ScalarType::Long, {2});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::max.dim_max", {r.tensor(b), r.i(1), r.b(false), r.tensor(mv), r.tensor(mi)}),
      Error::Ok);
  EXPECT_EQ(mv.values<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(mi.values<int64_t>(), (std::vector<int64_t>{0, 2}));
  HostTensor nv = zeros_tensor(ScalarType::Bool, {3});
  HostTensor ni = zeros_tensor(ScalarType::Long, {3});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::min.dim_min",
                   {r2.tensor(b), r2.i(0), r2.b(false), r2.tensor(nv), r2.tensor(ni)}),
            Error::Ok);
  EXPECT_EQ(nv.values<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(ni.values<int64_t>(), (std::vector<int64_t>{1, 0, 0}));
  HostTensor ai = zeros_tensor(ScalarType::Long, {2});
  KernelRunner r3;
  EXPECT_EQ(r3.run("aten::argmax.out", {r3.tensor(b), r3.i(1), r3.b(false), r3.tensor(ai)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
