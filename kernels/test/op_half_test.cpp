// Half and BFloat16 through the portable_half library (each call widened to
// float, run by the portable kernel, rounded back). Expected values are the
// bit patterns torch 2.15.0 eager produces on CPU, e.g.
//   a = torch.tensor([1.5, -2.25, 1000.0, 0.1, 65504.0, -3.0], dtype=torch.float16)
//   torch.add(a, c, alpha=2).view(torch.int16)
#include <cstdint>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

HostTensor bits_tensor(ScalarType dtype, std::vector<int32_t> sizes,
                       const std::vector<uint16_t>& bits,
                       ShapeDynamism dynamism = ShapeDynamism::Static) {
  Result<HostTensor> t = HostTensor::from_bytes(dtype, std::move(sizes), bits.data(),
                                                bits.size() * sizeof(uint16_t), {}, dynamism);
  EXPECT_TRUE(t.ok());
  return *std::move(t);
}

std::vector<uint16_t> bits_of(const HostTensor& t) { return t.values<uint16_t>(); }

TEST(OpHalfTest, AddWithAlphaRoundsOnceLikePyTorch) {
  HostTensor a = bits_tensor(ScalarType::Half, {6}, {15872, 49280, 25552, 11878, 31743, 49664});
  HostTensor c = bits_tensor(ScalarType::Half, {6}, {13312, 12288, 47104, 12902, 15360, 18176});
  HostTensor out = zeros_tensor(ScalarType::Half, {6}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::add.out", {r.tensor(a), r.tensor(c), r.i(2), r.tensor(out)}), Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable_half");
  // torch.add(a, c, alpha=2); 65504 + 2 stays 65504 (no overflow to inf).
  EXPECT_EQ(bits_of(out), (std::vector<uint16_t>{16384, 49152, 25550, 14336, 31743, 18816}));
}

TEST(OpHalfTest, MatmulAccumulatesInFloat) {
  // x = torch.tensor([[1,2,3],[4,5,6]], dtype=torch.float16) * 0.1
  HostTensor x = bits_tensor(ScalarType::Half, {2, 3}, {11878, 12902, 13517, 13926, 14336, 14541});
  HostTensor w = bits_tensor(ScalarType::Half, {3, 2}, {14336, 48128, 16384, 13312, 49664, 15872});
  HostTensor out = zeros_tensor(ScalarType::Half, {2, 2}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::mm.out", {r.tensor(x), r.tensor(w), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bits_of(out), (std::vector<uint16_t>{46900, 13927, 47310, 14592}));  // x @ w
}

TEST(OpHalfTest, BFloat16Softmax) {
  HostTensor s = bits_tensor(ScalarType::BFloat16, {2, 4},
                             {16256, 16384, 16448, 16512, 49024, 0, 16256, 17096});
  HostTensor out = zeros_tensor(ScalarType::BFloat16, {2, 4}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_softmax.out", {r.tensor(s), r.i(-1), r.b(false), r.tensor(out)}),
            Error::Ok);
  // torch.softmax(s, -1) in bfloat16
  EXPECT_EQ(bits_of(out), (std::vector<uint16_t>{15619, 15794, 15987, 16165, 0, 0, 0, 16256}));
}

TEST(OpHalfTest, ToCopyRoundsToNearestEvenAndOverflowsToInf) {
  // f = torch.tensor([1.0009765625 + 2**-11, 70000.0, -1e-8, 3.14159265])
  HostTensor f =
      make_tensor<float>({4}, {1.0009765625f + 0.00048828125f, 70000.0f, -1e-8f, 3.14159265f});
  HostTensor h = zeros_tensor(ScalarType::Half, {4}, ShapeDynamism::Static);
  HostTensor b = zeros_tensor(ScalarType::BFloat16, {4}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(f), r.b(false), r.none(), r.tensor(h)}),
            Error::Ok);
  EXPECT_EQ(bits_of(h), (std::vector<uint16_t>{15362, 31744, 32768, 16968}));  // f.to(float16)
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::_to_copy.out", {r2.tensor(f), r2.b(false), r2.none(), r2.tensor(b)}),
            Error::Ok);
  EXPECT_EQ(bits_of(b), (std::vector<uint16_t>{16256, 18313, 45612, 16457}));  // f.to(bfloat16)
}

TEST(OpHalfTest, HalfToIntTruncates) {
  // hv = torch.tensor([2.75, -2.75, 1000.5, -0.5], dtype=torch.float16); hv.to(torch.int32)
  HostTensor hv = bits_tensor(ScalarType::Half, {4}, {16768, 49536, 25553, 47104});
  HostTensor out = zeros_tensor(ScalarType::Int, {4}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_to_copy.out", {r.tensor(hv), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{2, -2, 1000, 0}));
}

TEST(OpHalfTest, MeanResizesABoundedOutput) {
  // m = (torch.arange(12.).reshape(3, 4).half() * 0.3); m.mean(1)
  HostTensor m =
      bits_tensor(ScalarType::Half, {3, 4},
                  {0, 13517, 14541, 15155, 15565, 15872, 16179, 16435, 16589, 16742, 16896, 17050});
  HostTensor out = zeros_tensor(ScalarType::Half, {8}, ShapeDynamism::DynamicBound);
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::mean.out", {r.tensor(m), r.int_list({1}), r.b(false), r.none(), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{3}));
  EXPECT_EQ(bits_of(out), (std::vector<uint16_t>{14131, 16026, 16819}));
}

TEST(OpHalfTest, LayerNormWritesAllThreeBFloat16Outputs) {
  HostTensor x = bits_tensor(ScalarType::BFloat16, {2, 4},
                             {16256, 16384, 16512, 16640, 16128, 48896, 16000, 16448});
  HostTensor w = bits_tensor(ScalarType::BFloat16, {4}, {16256, 16128, 16384, 49024});
  HostTensor b = bits_tensor(ScalarType::BFloat16, {4}, {0, 15821, 48589, 16256});
  HostTensor out = zeros_tensor(ScalarType::BFloat16, {2, 4}, ShapeDynamism::Static);
  HostTensor mean = zeros_tensor(ScalarType::BFloat16, {2, 1}, ShapeDynamism::Static);
  HostTensor rstd = zeros_tensor(ScalarType::BFloat16, {2, 1}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({4}), r.tensor(w), r.tensor(b), r.d(1e-5), r.tensor(out),
                   r.tensor(mean), r.tensor(rstd)}),
            Error::Ok);
  // torch.native_layer_norm(x, [4], w, b, 1e-5) in bfloat16
  EXPECT_EQ(bits_of(out),
            (std::vector<uint16_t>{49027, 48744, 15793, 48918, 48755, 48844, 49013, 48938}));
  EXPECT_EQ(bits_of(mean), (std::vector<uint16_t>{16496, 16208}));
  EXPECT_EQ(bits_of(rstd), (std::vector<uint16_t>{16063, 16195}));
}

TEST(OpHalfTest, ByteMovingKernelsTakeHalfDirectly) {
  HostTensor a = bits_tensor(ScalarType::Half, {2, 2}, {1, 2, 3, 4});
  HostTensor out = zeros_tensor(ScalarType::Half, {2, 2}, ShapeDynamism::Static);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::permute_copy.out", {r.tensor(a), r.int_list({1, 0}), r.tensor(out)}),
            Error::Ok);
  EXPECT_STREQ(r.chosen_library(), "portable");
  EXPECT_EQ(bits_of(out), (std::vector<uint16_t>{1, 3, 2, 4}));
}

TEST(OpHalfTest, TempMemoryTooSmallIsAClearError) {
  // 300k halves need 1.2 MB of float copies; the harness's temp allocator has 1 MiB.
  std::vector<uint16_t> ones(300000, 15360);
  HostTensor a = bits_tensor(ScalarType::Half, {300000}, ones);
  HostTensor out = zeros_tensor(ScalarType::Half, {300000}, ShapeDynamism::Static);
  KernelRunner r;
  EXPECT_EQ(r.run("aten::relu.out", {r.tensor(a), r.tensor(out)}), Error::MemoryAllocationFailed);
}

TEST(OpHalfTest, DtypesOutsideTheFloatKernelAreStillRefused) {
  // bitwise ops have no float kernel, so no Half entry either.
  HostTensor a = bits_tensor(ScalarType::Half, {2}, {15360, 16384});
  HostTensor out = zeros_tensor(ScalarType::Half, {2}, ShapeDynamism::Static);
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::bitwise_not.out", {r.tensor(a), r.tensor(out)}), Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
