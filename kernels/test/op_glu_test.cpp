// aten::glu.out. Expected values: torch 2.15.0 eager on CPU,
// torch.nn.functional.glu(x, dim) on the inputs of each case.
#include <cstdint>
#include <vector>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

constexpr const char* kOp = "aten::glu.out";

// x = torch.tensor([[1.5, -2.0, 3.25, 0.5], [4.0, 5.5, -6.0, 7.0]])
HostTensor sample_2x4() {
  return make_tensor<float>({2, 4}, {1.5f, -2.0f, 3.25f, 0.5f, 4.0f, 5.5f, -6.0f, 7.0f});
}

TEST(OpGluTest, HalvesEachDim) {
  struct Case {
    int64_t dim;
    std::vector<int32_t> shape;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      // glu(x, -1) and glu(x, 1)
      {-1,
       {2, 2},
       {1.44400954246521f, -1.244918704032898f, 0.00989049207419157f, 5.494989395141602f}},
      {1,
       {2, 2},
       {1.44400954246521f, -1.244918704032898f, 0.00989049207419157f, 5.494989395141602f}},
      // glu(x, 0) and glu(x, -2)
      {0,
       {1, 4},
       {1.4730206727981567f, -1.991859793663025f, 0.008036024868488312f, 0.49954450130462646f}},
      {-2,
       {1, 4},
       {1.4730206727981567f, -1.991859793663025f, 0.008036024868488312f, 0.49954450130462646f}},
  };
  for (const Case& c : cases) {
    HostTensor x = sample_2x4();
    HostTensor out = zeros_tensor(ScalarType::Float, {2, 4});
    KernelRunner r;
    ASSERT_EQ(r.run(kOp, {r.tensor(x), r.i(c.dim), r.tensor(out)}), Error::Ok) << c.dim;
    EXPECT_EQ(out.shape(), c.shape);
    expect_close(out.values<float>(), c.expected, 2e-6, 1e-6);
  }
}

TEST(OpGluTest, Rank3OuterDim) {
  // x3 = torch.arange(24.).reshape(2, 3, 4) / 8 - 1; glu(x3, 0)
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i) / 8.0f - 1.0f;
  HostTensor x = make_tensor<float>({2, 3, 4}, v);
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 3, 4});
  KernelRunner r;
  ASSERT_EQ(r.run(kOp, {r.tensor(x), r.i(0), r.tensor(out)}), Error::Ok);
  expect_close(
      out.values<float>(),
      {-0.622459352016449f, -0.5699355602264404f, -0.509384036064148f, -0.4411156475543976f,
       -0.36552929878234863f, -0.283093124628067f, -0.19432497024536133f, -0.0997733473777771f,
       0.0f, 0.10443544387817383f, 0.21298818290233612f, 0.3251383900642395f},
      2e-6, 1e-6);
}

TEST(OpGluTest, DoubleAndFloatIntoDouble) {
  // glu(torch.tensor([0.5, -1.0, 2.0, 3.0], dtype=torch.float64))
  HostTensor xd = make_tensor<double>({4}, {0.5, -1.0, 2.0, 3.0});
  HostTensor dout = zeros_tensor(ScalarType::Double, {2});
  KernelRunner r;
  ASSERT_EQ(r.run(kOp, {r.tensor(xd), r.i(-1), r.tensor(dout)}), Error::Ok);
  expect_close(dout.values<double>(), {0.44039853898894116, -0.9525741268224334}, 1e-14, 0.0);
  // aten.glu.out(float32 x, -1, out=float64): computed in float32
  HostTensor xf = make_tensor<float>({4}, {0.5f, -1.0f, 2.0f, 3.0f});
  KernelRunner r2;
  ASSERT_EQ(r2.run(kOp, {r2.tensor(xf), r2.i(-1), r2.tensor(dout)}), Error::Ok);
  expect_close(dout.values<double>(), {0.44039851427078247, -0.9525741338729858}, 1e-7, 0.0);
}

TEST(OpGluTest, ChannelsLast) {
  // xc = torch.arange(16.).reshape(1, 4, 2, 2) / 4 - 2 stored channels-last; glu(xc, 1)
  HostTensor x = make_tensor<float>({1, 4, 2, 2},
                                    {-2.0f, -1.0f, 0.0f, 1.0f, -1.75f, -0.75f, 0.25f, 1.25f, -1.5f,
                                     -0.5f, 0.5f, 1.5f, -1.25f, -0.25f, 0.75f, 1.75f},
                                    {0, 2, 3, 1});
  HostTensor out = make_tensor<float>({1, 2, 2, 2}, std::vector<float>(8), {0, 2, 3, 1});
  KernelRunner r;
  ASSERT_EQ(r.run(kOp, {r.tensor(x), r.i(1), r.tensor(out)}), Error::Ok);
  // The result in out's (channels-last) storage order.
  expect_close(
      out.values<float>(),
      {-1.0f, -0.7310585975646973f, -0.9838089346885681f, -0.582974910736084f, -0.9336889982223511f,
       -0.40878722071647644f, -0.8489733934402466f, -0.21298818290233612f},
      2e-6, 1e-6);
}

TEST(OpGluTest, EmptyOddAndRefusals) {
  // glu(torch.zeros(0, 4), 0): size 0 is even, the result is [0, 4].
  HostTensor e = zeros_tensor(ScalarType::Float, {0, 4});
  HostTensor eout = zeros_tensor(ScalarType::Float, {0, 4});
  KernelRunner r;
  ASSERT_EQ(r.run(kOp, {r.tensor(e), r.i(0), r.tensor(eout)}), Error::Ok);
  EXPECT_EQ(eout.shape(), (std::vector<int32_t>{0, 4}));
  // "Halving dimension must be even, but dimension 0 is size 3"
  HostTensor odd = make_tensor<float>({3}, {1.0f, 2.0f, 3.0f});
  HostTensor oout = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r2;
  EXPECT_EQ(r2.run(kOp, {r2.tensor(odd), r2.i(0), r2.tensor(oout)}), Error::InvalidArgument);
  // 0-d: "glu does not support scalars"
  HostTensor s = make_tensor<float>({}, {1.0f});
  HostTensor sout = zeros_tensor(ScalarType::Float, {});
  KernelRunner r3;
  EXPECT_EQ(r3.prepare(kOp, {r3.tensor(s), r3.i(0), r3.tensor(sout)}), Error::InvalidArgument);
  // Dim out of range.
  HostTensor x = sample_2x4();
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 4});
  KernelRunner r4;
  EXPECT_EQ(r4.prepare(kOp, {r4.tensor(x), r4.i(2), r4.tensor(out)}), Error::InvalidArgument);
  // "glu_cpu" not implemented for 'Long'
  HostTensor l = make_tensor<int64_t>({2}, {1, 2});
  HostTensor lout = zeros_tensor(ScalarType::Long, {1});
  KernelRunner r5;
  EXPECT_EQ(r5.prepare(kOp, {r5.tensor(l), r5.i(0), r5.tensor(lout)}), Error::InvalidType);
  // "result type Float can't be cast to the desired output type Long"
  HostTensor lout2 = zeros_tensor(ScalarType::Long, {2, 2});
  KernelRunner r6;
  EXPECT_EQ(r6.prepare(kOp, {r6.tensor(x), r6.i(1), r6.tensor(lout2)}), Error::InvalidType);
  // Out of another rank.
  HostTensor out1 = zeros_tensor(ScalarType::Float, {4});
  KernelRunner r7;
  EXPECT_EQ(r7.prepare(kOp, {r7.tensor(x), r7.i(1), r7.tensor(out1)}), Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
