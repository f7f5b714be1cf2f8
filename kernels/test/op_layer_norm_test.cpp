// Tests for aten::native_layer_norm.out. Expected values were computed with
// torch.native_layer_norm (PyTorch eager, CPU) from the same inputs.
#include <cstdint>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpLayerNormTest, LastDimWithWeightAndBias) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto w = make_tensor<float>({4}, {0.5f, 1.0f, -1.0f, 2.0f});
  auto b = make_tensor<float>({4}, {0.0f, 0.1f, 0.2f, -0.3f});
  auto out = static_out(ScalarType::Float, {2, 3, 4});
  auto mean = static_out(ScalarType::Float, {2, 3, 1});
  auto rstd = static_out(ScalarType::Float, {2, 3, 1});
  ASSERT_EQ(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({4}), r.tensor(w), r.tensor(b), r.d(1e-5), r.tensor(out),
                   r.tensor(mean), r.tensor(rstd)}),
            Error::Ok);
  expect_close(
      out.values<float>(),
      {0.18103446066379547f, -1.3811910152435303f, -1.0836988687515259f, -0.6291536092758179f,
       0.13503284752368927f, 0.6646828651428223f,  1.8940484523773193f,  1.4185998439788818f,
       -0.2987188994884491f, 1.7474799156188965f,  1.1595213413238525f,  -0.4810417592525482f,
       0.7953191995620728f,  -1.0756893157958984f, 0.37981128692626953f, -0.7702757120132446f,
       0.05025187134742737f, 0.20050373673439026f, -1.1065486669540405f, -3.315112352371216f,
       0.7635267972946167f,  -0.9643100500106812f, 0.8941152691841125f,  0.16274350881576538f});
  expect_close(mean.values<float>(), {0.8125f, 2.625f, 2.3125f, 1.8125f, 1.625f, 0.9375f});
  expect_close(rstd.values<float>(),
               {0.5266457200050354f, 0.19641141593456268f, 0.2896668016910553f, 0.2213062196969986f,
                0.2680099904537201f, 0.7403896450996399f});
}

TEST(OpLayerNormTest, TwoNormalizedDimsWeightOnly) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto w = make_tensor<float>(
      {3, 4}, {1.0f, 2.0f, 0.5f, -1.0f, 0.0f, 1.0f, 1.0f, 3.0f, 2.0f, 2.0f, 2.0f, 2.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  auto mean = zeros_tensor(ScalarType::Float, {2, 1, 1});
  auto rstd = zeros_tensor(ScalarType::Float, {2, 1, 1});
  ASSERT_EQ(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({3, 4}), r.tensor(w), r.none(), r.d(1e-3), r.tensor(out),
                   r.tensor(mean), r.tensor(rstd)}),
            Error::Ok);
  expect_close(out.values<float>(), {-0.1096416562795639f,
                                     -2.061262845993042f,
                                     0.17542661726474762f,
                                     0.3727816045284271f,
                                     0.0f,
                                     0.942918062210083f,
                                     -2.083191156387329f,
                                     4.01288366317749f,
                                     -0.8771331310272217f,
                                     3.201535701751709f,
                                     -1.5349830389022827f,
                                     0.04385661333799362f,
                                     2.1594223976135254f,
                                     -2.839461326599121f,
                                     -0.06561779230833054f,
                                     0.20281864702701569f,
                                     0.0f,
                                     0.15509666502475739f,
                                     1.443591833114624f,
                                     -4.688690185546875f,
                                     0.8828577995300293f,
                                     -1.1214679479599f,
                                     -0.8351356983184814f,
                                     -0.11930505931377411f});
  expect_close(mean.values<float>(), {1.9166667461395264f, 1.4583332538604736f});
  expect_close(rstd.values<float>(), {0.263139933347702f, 0.28633224964141846f});
}

TEST(OpLayerNormTest, NoAffine) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  auto mean = zeros_tensor(ScalarType::Float, {2, 3, 1});
  auto rstd = zeros_tensor(ScalarType::Float, {2, 3, 1});
  ASSERT_EQ(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({4}), r.none(), r.none(), r.d(1e-5), r.tensor(out),
                   r.tensor(mean), r.tensor(rstd)}),
            Error::Ok);
  expect_close(
      out.values<float>(),
      {0.36206892132759094f, -1.4811910390853882f, 1.2836989164352417f,  -0.16457678377628326f,
       0.27006569504737854f, 0.5646828413009644f,  -1.6940484046936035f, 0.8592999577522278f,
       -0.5974377989768982f, 1.6474798917770386f,  -0.9595212936401367f, -0.09052087366580963f,
       1.5906383991241455f,  -1.1756893396377563f, -0.1798112988471985f, -0.23513786494731903f,
       0.10050374269485474f, 0.10050374269485474f, 1.3065487146377563f,  -1.5075562000274658f,
       1.5270535945892334f,  -1.064310073852539f,  -0.6941152811050415f, 0.23137176036834717f});
}

TEST(OpLayerNormTest, MismatchedShapesFail) {
  KernelRunner r;
  auto x = sample_2x3x4();
  auto w = make_tensor<float>({3}, {1.0f, 1.0f, 1.0f});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  auto mean = zeros_tensor(ScalarType::Float, {2, 3, 1});
  auto rstd = zeros_tensor(ScalarType::Float, {2, 3, 1});
  EXPECT_EQ(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({3}), r.none(), r.none(), r.d(1e-5), r.tensor(out),
                   r.tensor(mean), r.tensor(rstd)}),
            Error::InvalidArgument);
  EXPECT_EQ(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({4}), r.tensor(w), r.none(), r.d(1e-5), r.tensor(out),
                   r.tensor(mean), r.tensor(rstd)}),
            Error::InvalidArgument);
  auto bad_mean = static_out(ScalarType::Float, {2, 3});
  EXPECT_NE(r.run("aten::native_layer_norm.out",
                  {r.tensor(x), r.int_list({4}), r.none(), r.none(), r.d(1e-5), r.tensor(out),
                   r.tensor(bad_mean), r.tensor(rstd)}),
            Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
