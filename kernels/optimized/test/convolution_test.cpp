// The optimized aten::convolution.out against the portable kernel over
// seeded random shapes: every path (pointwise GEMM, im2col + GEMM with and
// without tiling, depthwise 3x3/5x5/other, grouped GEMM, zero input
// channels), 1-D and 2-D, on 1 and 2 threads, with constant and
// non-constant weights, and shrinking sizes between prepare and run.
#include <string>

#include "kernels/cpu_math/conv_depthwise.h"
#include "kernels/cpu_math/cpu_features.h"
#include "kernels/optimized/test/optimized_test_util.h"

namespace etr {
namespace testing {
namespace {

struct Case {
  int batch = 1, cin = 1, h = 1, w = 1, cout = 1, kh = 1, kw = 1;
  int sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
  bool bias = true;
  bool one_d = false;  // rank 3: h == kh == 1, parameters given for w only
};

// A square k x k layer, stride `stride`, padding `pad` on every side.
Case square(int cin, int cout, int h, int w, int k, int stride, int pad) {
  Case c;
  c.cin = cin;
  c.cout = cout;
  c.h = h;
  c.w = w;
  c.kh = c.kw = k;
  c.sh = c.sw = stride;
  c.ph = c.pw = pad;
  return c;
}

std::string describe(const Case& c) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "%s x[%d,%d,%d,%d] w[%d,%d,%d,%d] s(%d,%d) p(%d,%d) d(%d,%d) g=%d bias=%d",
                c.one_d ? "1d" : "2d", c.batch, c.cin, c.h, c.w, c.cout, c.cin / c.groups, c.kh,
                c.kw, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups, c.bias ? 1 : 0);
  return buf;
}

int extent(int in, int k, int s, int p, int d) {
  const int span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? -1 : span / s + 1;
}

std::vector<int32_t> input_sizes(const Case& c) {
  if (c.one_d) return {c.batch, c.cin, c.w};
  return {c.batch, c.cin, c.h, c.w};
}
std::vector<int32_t> weight_sizes(const Case& c) {
  if (c.one_d) return {c.cout, c.cin / c.groups, c.kw};
  return {c.cout, c.cin / c.groups, c.kh, c.kw};
}
std::vector<int32_t> output_sizes(const Case& c) {
  const int ow = extent(c.w, c.kw, c.sw, c.pw, c.dw);
  if (c.one_d) return {c.batch, c.cout, ow};
  return {c.batch, c.cout, extent(c.h, c.kh, c.sh, c.ph, c.dh), ow};
}

struct Tensors {
  HostTensor x, w, b, out;
};

Tensors make_tensors(const Case& c, std::mt19937& rng) {
  Tensors t{random_float_tensor(input_sizes(c), rng), random_float_tensor(weight_sizes(c), rng),
            random_float_tensor({c.cout}, rng), zeros_tensor(ScalarType::Float, output_sizes(c))};
  return t;
}

Error prepare_conv(KernelRunner& r, const Case& c, Tensors& t) {
  std::vector<int64_t> stride{c.sh, c.sw}, padding{c.ph, c.pw}, dilation{c.dh, c.dw};
  std::vector<int64_t> out_pad{0, 0};
  if (c.one_d) {
    stride = {c.sw};
    padding = {c.pw};
    dilation = {c.dw};
    out_pad = {0};
  }
  return r.prepare("aten::convolution.out",
                   {r.tensor(t.x), r.tensor(t.w), c.bias ? r.tensor(t.b) : r.none(),
                    r.int_list(stride), r.int_list(padding), r.int_list(dilation), r.b(false),
                    r.int_list(out_pad), r.i(c.groups), r.tensor(t.out)});
}

// Runs the case on the optimized library (expected to take it) and on the
// portable reference, and compares.
void check_case(const Case& c, ThreadPool* pool, bool constant_weights, uint32_t seed) {
  const std::string what = describe(c) + (pool == nullptr ? " 1 thread" : " 2 threads") +
                           (constant_weights ? " const" : "") + " seed " + std::to_string(seed);
  std::mt19937 rng(seed);
  Tensors opt = make_tensors(c, rng);
  rng.seed(seed);
  Tensors ref = make_tensors(c, rng);

  KernelRunner r(test_kernel_registry(), pool);
  if (constant_weights) r.set_constant_args(0b110);
  ASSERT_EQ(prepare_conv(r, c, opt), Error::Ok) << what;
  EXPECT_STREQ(r.chosen_library(), "optimized") << what;
  ASSERT_EQ(r.run_prepared(), Error::Ok) << what;
  // A second execute reuses the prepared state.
  ASSERT_EQ(r.run_prepared(), Error::Ok) << what;

  KernelRunner pr(portable_reference_registry(), nullptr);
  ASSERT_EQ(prepare_conv(pr, c, ref), Error::Ok) << what;
  ASSERT_EQ(pr.run_prepared(), Error::Ok) << what;
  const int k = (c.cin / c.groups) * c.kh * c.kw;
  expect_tensor_close(opt.out, ref.out, 1e-4, 1e-6 + 3e-7 * k, what);
}

void check_all_modes(const Case& c, uint32_t seed) {
  check_case(c, nullptr, false, seed);
  check_case(c, test_thread_pool(), false, seed);
  check_case(c, nullptr, true, seed);
  check_case(c, test_thread_pool(), true, seed);
}

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// Fills the spatial sizes so the output is at least 1x1 (kernel spans fit).
void fit_input(Case* c, std::mt19937& rng) {
  const int span_h = (c->kh - 1) * c->dh + 1 - 2 * c->ph;
  const int span_w = (c->kw - 1) * c->dw + 1 - 2 * c->pw;
  c->h = std::max(1, span_h) + pick(rng, 0, 13);
  c->w = std::max(1, span_w) + pick(rng, 0, 21);
  if (c->one_d) {
    c->h = c->kh = c->sh = c->dh = 1;
    c->ph = 0;
  }
}

Case random_spatial(std::mt19937& rng, const int* kernels, int num_kernels) {
  Case c;
  c.kh = kernels[pick(rng, 0, num_kernels - 1)];
  c.kw = pick(rng, 0, 3) == 0 ? kernels[pick(rng, 0, num_kernels - 1)] : c.kh;
  c.sh = pick(rng, 1, 2);
  c.sw = pick(rng, 0, 3) == 0 ? pick(rng, 1, 3) : c.sh;
  c.dh = pick(rng, 0, 3) == 0 ? 2 : 1;
  c.dw = pick(rng, 0, 3) == 0 ? 2 : c.dh;
  c.ph = pick(rng, 0, c.kh / 2 + 1);
  c.pw = pick(rng, 0, 3) == 0 ? pick(rng, 0, c.kw / 2 + 1) : std::min(c.ph, c.kw / 2 + 1);
  c.batch = pick(rng, 1, 2);
  c.bias = pick(rng, 0, 2) != 0;
  c.one_d = pick(rng, 0, 4) == 0;
  return c;
}

TEST(OptConvolutionTest, PointwiseMatchesPortable) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    Case c;
    c.cin = pick(rng, 1, 37);
    c.cout = pick(rng, 1, 41);
    c.h = pick(rng, 1, 19);
    c.w = pick(rng, 1, 23);
    c.batch = pick(rng, 1, 2);
    c.bias = seed % 3 != 0;
    c.one_d = seed % 4 == 0;
    if (c.one_d) c.h = 1;
    // A 1x1 image (squeeze-and-excitation layers): the matrix-vector path.
    if (seed % 5 == 0) c.h = c.w = 1;
    check_all_modes(c, seed);
  }
}

TEST(OptConvolutionTest, Im2colMatchesPortable) {
  const int kernels[] = {1, 2, 3, 5, 7};
  for (uint32_t seed = 100; seed < 130; ++seed) {
    std::mt19937 rng(seed);
    Case c = random_spatial(rng, kernels, 5);
    c.cin = pick(rng, 1, 9);
    c.cout = pick(rng, 1, 19);
    fit_input(&c, rng);
    check_all_modes(c, seed);
  }
}

TEST(OptConvolutionTest, Im2colTilesWhenTempIsShort) {
  // 64 channels x 3x3 over 48x40 outputs: the im2col matrix (about 4.4 MB)
  // exceeds the test's 1 MiB temp memory, so it runs in tiles.
  check_all_modes(square(64, 24, 48, 40, 3, 1, 1), 7);
}

TEST(OptConvolutionTest, Im2colChunksPerThreadMatchPortable) {
  // Enough output pixels for 4 chunks per thread of at least 16 panels: on 2
  // threads each chunk is one thread's im2col and product. A stem-like 7x7
  // stride-2 layer (50 x 48 outputs in chunks of 288, and 51 x 47 whose last
  // chunk is 93 columns, not whole panels), in 2 images and 2 groups, and a
  // stride-2 3x3 layer.
  check_all_modes(square(3, 20, 100, 96, 7, 2, 3), 11);
  check_all_modes(square(3, 20, 102, 94, 7, 2, 3), 12);
  Case grouped = square(4, 6, 102, 94, 7, 2, 3);
  grouped.groups = 2;
  grouped.batch = 2;
  check_all_modes(grouped, 13);
  Case s2 = square(16, 24, 100, 92, 3, 2, 1);
  s2.bias = false;
  check_all_modes(s2, 14);
}

TEST(OptConvolutionTest, PatchLayersMatchPortable) {
  // Kernel rows of 8+ floats over unpadded input (a ViT's patch embedding):
  // X^T built row-major from kernel-row copies and read in place by the
  // transposed product. 16x16 stride 16 (a 14 x 12 grid, and 13 x 11 with
  // input left over at the edges), 8x8 stride 8 in 2 images and 2 groups,
  // overlapping 8x8 stride 4 windows, a 1-D layer of 8-tap stride-8 patches,
  // and a layer whose X^T (1.1 MB) exceeds the test's 1 MiB temp memory, so
  // its product runs in tiles of output pixels.
  check_all_modes(square(3, 32, 224, 192, 16, 16, 0), 21);
  check_all_modes(square(3, 16, 215, 190, 16, 16, 0), 22);
  // 65 input channels per group: more than the grouped direct kernel takes.
  Case grouped = square(130, 32, 40, 48, 8, 8, 0);
  grouped.groups = 2;
  grouped.batch = 2;
  check_all_modes(grouped, 23);
  check_all_modes(square(2, 16, 36, 44, 8, 4, 0), 24);
  Case one_d = square(5, 32, 1, 400, 8, 8, 0);
  one_d.one_d = true;
  one_d.kh = one_d.sh = 1;
  check_all_modes(one_d, 25);
  check_all_modes(square(4, 16, 224, 320, 16, 16, 0), 26);
}

TEST(OptConvolutionTest, DepthwiseMatchesPortable) {
  const int kernels[] = {3, 5, 3, 5, 1, 2, 4, 7};
  for (uint32_t seed = 200; seed < 240; ++seed) {
    std::mt19937 rng(seed);
    Case c = random_spatial(rng, kernels, 8);
    c.cin = c.cout = c.groups = pick(rng, 1, 19);
    fit_input(&c, rng);
    // Wide rows reach the 32-wide AVX2 loop.
    if (seed % 5 == 0) c.w += 70;
    check_all_modes(c, seed);
  }
}

// The generic (non-AVX2) depthwise code against the AVX2 one, which the
// cases above compare with portable; on a CPU without AVX2 both are generic.
TEST(OptConvolutionTest, DepthwiseGenericMatchesAvx2) {
  const bool avx2 = opt::cpu_features().avx2_fma;
  for (uint32_t seed = 250; seed < 290; ++seed) {
    std::mt19937 rng(seed);
    opt::DepthwiseGeom g;
    g.batch = pick(rng, 1, 2);
    g.channels = pick(rng, 1, 7);
    g.kh = pick(rng, 1, 5);
    g.kw = seed % 3 == 0 ? pick(rng, 1, 5) : g.kh;
    g.sh = pick(rng, 1, 3);
    g.sw = seed % 2 == 0 ? 2 : pick(rng, 1, 3);
    g.ph = pick(rng, 0, g.kh);
    g.pw = pick(rng, 0, g.kw);
    g.dh = pick(rng, 1, 2);
    g.dw = pick(rng, 1, 2);
    g.h = std::max<int64_t>(1, (g.kh - 1) * g.dh + 1 - 2 * g.ph) + pick(rng, 0, 9);
    g.w = std::max<int64_t>(1, (g.kw - 1) * g.dw + 1 - 2 * g.pw) + pick(rng, 0, 60);
    g.oh = (g.h + 2 * g.ph - (g.kh - 1) * g.dh - 1) / g.sh + 1;
    g.ow = (g.w + 2 * g.pw - (g.kw - 1) * g.dw - 1) / g.sw + 1;
    HostTensor x = random_float_tensor({static_cast<int>(g.batch * g.channels * g.h * g.w)}, rng);
    HostTensor w = random_float_tensor({static_cast<int>(g.channels * g.kh * g.kw)}, rng);
    HostTensor b = random_float_tensor({static_cast<int>(g.channels)}, rng);
    const int out_n = static_cast<int>(g.batch * g.channels * g.oh * g.ow);
    HostTensor out_generic = zeros_tensor(ScalarType::Float, {out_n});
    HostTensor out_avx2 = zeros_tensor(ScalarType::Float, {out_n});
    const opt::DepthwisePlan plan = opt::plan_depthwise(g, 2);
    ASSERT_NE(plan.scratch_bytes, 0u);
    std::vector<uint8_t> scratch(plan.scratch_bytes + 64);
    void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    opt::depthwise_conv(g, plan, x.tensor().const_data_ptr<float>(),
                        w.tensor().const_data_ptr<float>(), b.tensor().const_data_ptr<float>(),
                        out_generic.tensor().data_ptr<float>(), aligned, test_thread_pool(), false);
    opt::depthwise_conv(g, plan, x.tensor().const_data_ptr<float>(),
                        w.tensor().const_data_ptr<float>(), b.tensor().const_data_ptr<float>(),
                        out_avx2.tensor().data_ptr<float>(), aligned, nullptr, avx2);
    expect_tensor_close(out_generic, out_avx2, 1e-5, 1e-6 * static_cast<double>(g.kh * g.kw),
                        "seed " + std::to_string(seed));
  }
}

TEST(OptConvolutionTest, DepthwiseMobileNetShapes) {
  // The 3x3 and 5x5, stride 1 and 2, padding k/2 layers of MobileNetV2 and
  // EfficientNet-B0 (reduced channel counts).
  const int shapes[][4] = {{3, 1, 56, 56}, {3, 2, 56, 56},   {5, 1, 14, 14}, {5, 2, 28, 28},
                           {3, 1, 7, 7},   {3, 2, 113, 113}, {5, 2, 15, 9}};
  uint32_t seed = 300;
  for (const auto& s : shapes) {
    Case c;
    c.cin = c.cout = c.groups = 6;
    c.kh = c.kw = s[0];
    c.sh = c.sw = s[1];
    c.ph = c.pw = s[0] / 2;
    c.h = s[2];
    c.w = s[3];
    check_all_modes(c, seed++);
  }
}

TEST(OptConvolutionTest, GroupedMatchesPortable) {
  const int kernels[] = {1, 3, 5};
  for (uint32_t seed = 400; seed < 420; ++seed) {
    std::mt19937 rng(seed);
    Case c = random_spatial(rng, kernels, 3);
    c.groups = pick(rng, 2, 4);
    c.cin = c.groups * pick(rng, 1, 5);
    c.cout = c.groups * pick(rng, 1, 5);
    // Depthwise with a channel multiplier also takes the grouped path.
    if (seed % 7 == 0) c.cin = c.groups;
    fit_input(&c, rng);
    check_all_modes(c, seed);
  }
}

// Groups of 8 or 16 output channels (RegNet's grouped 3x3 layers, reduced):
// the direct grouped kernel, checked against the portable kernel.
TEST(OptConvolutionTest, GroupsOfEightMatchPortable) {
  const int kernels[] = {1, 3, 5};
  for (uint32_t seed = 430; seed < 442; ++seed) {
    std::mt19937 rng(seed);
    Case c = random_spatial(rng, kernels, 3);
    c.groups = pick(rng, 2, 5);
    c.cin = c.groups * (seed % 3 == 0 ? 8 : pick(rng, 1, 12));
    c.cout = c.groups * 8 * pick(rng, 1, 2);
    fit_input(&c, rng);
    check_all_modes(c, seed);
  }
  Case r;  // a RegNetY-400MF stage-2 layer: 104 channels in 13 groups, 3x3 stride 2
  r.cin = r.cout = 104;
  r.groups = 13;
  r.kh = r.kw = 3;
  r.sh = r.sw = 2;
  r.ph = r.pw = 1;
  r.h = r.w = 28;
  r.bias = true;
  check_all_modes(r, 450);
}

TEST(OptConvolutionTest, EmptyShapes) {
  Case c;
  c.cin = 3;
  c.cout = 4;
  c.h = 5;
  c.w = 6;
  c.kh = c.kw = 3;
  c.batch = 0;
  check_all_modes(c, 500);
  c.batch = 2;
  c.cin = 0;  // zero input channels: out is the bias
  check_all_modes(c, 501);
  c.bias = false;
  check_all_modes(c, 502);
  c.cin = 3;
  c.cout = 0;
  check_all_modes(c, 503);
}

// Prepare sees the upper-bound sizes; run sees smaller ones.
// Outputs whose pixels leave a GEMM column panel mostly idle (7x7 = 49, 5x5,
// 3x3, 1-D 9) with channels per group a multiple of 16: the im2col product runs
// transposed (X^T W^T, then a transpose into out), weights packed as B.
TEST(OptConvolutionTest, SmallOutputsRunTheTransposedProduct) {
  const int extents[] = {7, 5, 3, 9};
  for (uint32_t seed = 200; seed < 212; ++seed) {
    std::mt19937 rng(seed);
    Case c;
    c.groups = seed % 4 == 3 ? 2 : 1;
    c.cin = c.groups * pick(rng, 1, 12);
    c.cout = c.groups * 16 * pick(rng, 1, 3);
    c.kh = c.kw = seed % 3 == 0 ? 1 : 3;
    c.ph = c.pw = c.kh / 2;
    c.sh = c.sw = seed % 5 == 0 ? 2 : 1;
    c.one_d = seed % 6 == 1;
    const int e = extents[seed % 4];
    // Input extent for output extent e: (e - 1) * s + k - 2p.
    c.h = (e - 1) * c.sh + c.kh - 2 * c.ph;
    c.w = c.h;
    if (c.kh == 1) c.sh = c.sw = 2;  // a 1x1 kernel with stride 2 is not pointwise
    if (c.kh == 1) c.h = c.w = (e - 1) * 2 + 1;
    if (c.one_d) c.h = c.kh = c.sh = 1, c.ph = 0;
    c.batch = pick(rng, 1, 2);
    c.bias = seed % 2 == 0;
    check_all_modes(c, seed);
  }
}

void check_shrunk(const Case& big, const Case& small, uint32_t seed) {
  const std::string what = describe(big) + " -> " + describe(small);
  std::mt19937 rng(seed);
  Tensors opt = make_tensors(big, rng);
  KernelRunner r(test_kernel_registry(), test_thread_pool());
  r.set_constant_args(0b110);
  ASSERT_EQ(prepare_conv(r, big, opt), Error::Ok) << what;
  EXPECT_STREQ(r.chosen_library(), "optimized") << what;
  // New input values for the smaller shape.
  rng.seed(seed + 1);
  HostTensor x_small = random_float_tensor(input_sizes(small), rng);
  const std::vector<float> xs = x_small.values<float>();
  const std::vector<int32_t> sizes = input_sizes(small);
  ASSERT_EQ(resize_tensor(opt.x.tensor(), Span<const int32_t>(sizes.data(), sizes.size())),
            Error::Ok);
  float* xd = opt.x.tensor().data_ptr<float>();
  for (size_t i = 0; i < xs.size(); ++i) xd[i] = xs[i];
  ASSERT_EQ(r.run_prepared(), Error::Ok) << what;

  Tensors ref{std::move(x_small), make_tensor<float>(weight_sizes(small), opt.w.values<float>()),
              make_tensor<float>({small.cout}, opt.b.values<float>()),
              zeros_tensor(ScalarType::Float, output_sizes(small))};
  KernelRunner pr(portable_reference_registry(), nullptr);
  ASSERT_EQ(prepare_conv(pr, small, ref), Error::Ok) << what;
  ASSERT_EQ(pr.run_prepared(), Error::Ok) << what;
  expect_tensor_close(opt.out, ref.out, 1e-4, 1e-5, what);
}

TEST(OptConvolutionTest, SmallerSizesAtRun) {
  Case big;
  big.batch = 2;
  big.cin = 8;
  big.cout = 8;
  big.h = 20;
  big.w = 20;
  big.kh = big.kw = 3;
  big.ph = big.pw = 1;
  Case small = big;
  small.batch = 1;
  small.h = 13;
  small.w = 11;
  check_shrunk(big, small, 600);  // im2col
  big.groups = small.groups = 8;
  big.cin = small.cin = 8;
  check_shrunk(big, small, 601);  // depthwise
  big.groups = small.groups = 1;
  big.kh = big.kw = small.kh = small.kw = 1;
  big.ph = big.pw = small.ph = small.pw = 0;
  check_shrunk(big, small, 602);  // pointwise
  small.batch = 0;                // empty at run
  check_shrunk(big, small, 603);
  // Prepared for a 7x7 output (weights packed for the transposed product),
  // run at 6x5 (30 pixels: transposed, same packing); prepared for 12x12 (144
  // pixels: the plain product, weights packed as A), run at 7x7 (transposed,
  // which must not use that packing).
  big.batch = small.batch = 1;
  big.cin = small.cin = 4;
  big.cout = small.cout = 32;
  big.kh = big.kw = small.kh = small.kw = 3;
  big.ph = big.pw = small.ph = small.pw = 1;
  big.h = big.w = 7;
  small.h = 6;
  small.w = 5;
  check_shrunk(big, small, 604);
  big.h = big.w = 12;
  small.h = small.w = 7;
  check_shrunk(big, small, 605);
}

TEST(OptConvolutionTest, ChannelMismatchAtRunIsAnError) {
  Case c;
  c.cin = 4;
  c.cout = 2;
  c.h = c.w = 6;
  c.kh = c.kw = 3;
  std::mt19937 rng(700);
  Tensors t = make_tensors(c, rng);
  KernelRunner r(test_kernel_registry(), test_thread_pool());
  ASSERT_EQ(prepare_conv(r, c, t), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "optimized");
  const int32_t sizes[] = {1, 3, 6, 6};
  ASSERT_EQ(resize_tensor(t.x.tensor(), Span<const int32_t>(sizes, 4)), Error::Ok);
  EXPECT_EQ(r.run_prepared(), Error::InvalidArgument);
}

TEST(OptConvolutionTest, DeclinesWhatPortableRuns) {
  // Transposed: portable.
  auto x = make_tensor<float>({1, 2, 4, 4}, iota<float>(32));
  auto w = make_tensor<float>({2, 3, 3, 3}, iota<float>(54));
  auto out = zeros_tensor(ScalarType::Float, {1, 3, 6, 6});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::convolution.out",
                  {r.tensor(x), r.tensor(w), r.none(), r.int_list({1, 1}), r.int_list({0, 0}),
                   r.int_list({1, 1}), r.b(true), r.int_list({0, 0}), r.i(1), r.tensor(out)}),
            Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable");
  // Double: portable.
  auto xd = make_tensor<double>({1, 2, 4, 4}, iota<double>(32));
  auto wd = make_tensor<double>({3, 2, 3, 3}, iota<double>(54));
  auto outd = zeros_tensor(ScalarType::Double, {1, 3, 2, 2});
  KernelRunner rd;
  ASSERT_EQ(
      rd.run("aten::convolution.out",
             {rd.tensor(xd), rd.tensor(wd), rd.none(), rd.int_list({1, 1}), rd.int_list({0, 0}),
              rd.int_list({1, 1}), rd.b(false), rd.int_list({0, 0}), rd.i(1), rd.tensor(outd)}),
      Error::Ok);
  EXPECT_STREQ(rd.chosen_library(), "portable");
  // Channels-last input: portable.
  auto xc = make_tensor<float>({1, 2, 4, 4}, iota<float>(32), {0, 2, 3, 1});
  auto wc = make_tensor<float>({3, 2, 3, 3}, iota<float>(54));
  auto outc = zeros_tensor(ScalarType::Float, {1, 3, 2, 2});
  KernelRunner rc;
  const Error e =
      rc.run("aten::convolution.out",
             {rc.tensor(xc), rc.tensor(wc), rc.none(), rc.int_list({1, 1}), rc.int_list({0, 0}),
              rc.int_list({1, 1}), rc.b(false), rc.int_list({0, 0}), rc.i(1), rc.tensor(outc)});
  EXPECT_NE(std::string(rc.chosen_library()), "optimized") << to_string(e);
}

}  // namespace
}  // namespace testing
}  // namespace etr
