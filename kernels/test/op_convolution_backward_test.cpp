// aten::convolution_backward.out. Expected values: torch 2.15.0 eager,
// torch.ops.aten.convolution_backward on the inputs below.
#include <algorithm>
#include <deque>
#include <memory>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

// BoolList values (KernelRunner has no maker for them); they live as long
// as the test binary.
EValue* bool_list(std::initializer_list<bool> v) {
  static std::deque<std::unique_ptr<bool[]>> store;
  static std::deque<EValue> values;
  bool* items = store.emplace_back(new bool[v.size()]).get();
  std::copy(v.begin(), v.end(), items);
  values.emplace_back(Span<const bool>(items, v.size()));
  return &values.back();
}

// x = ((torch.arange(64.) % 7 - 3) / 4).reshape(1, 4, 4, 4)
// w = (((torch.arange(16.) % 5) - 2) / 3).reshape(2, 2, 2, 2)
// go = (((torch.arange(12.) % 9) - 3) / 5).reshape(1, 2, 3, 2)
// convolution_backward(go, x, w, [2], [2, 1], [1, 0], [1, 2], False, [0, 0], 2,
//                      [True, True, True])
TEST(OpConvolutionBackwardTest, Grouped2d) {
  std::vector<float> xv(64), wv(16), gov(12);
  for (int i = 0; i < 64; ++i) xv[i] = static_cast<float>(i % 7 - 3) / 4;
  for (int i = 0; i < 16; ++i) wv[i] = static_cast<float>(i % 5 - 2) / 3;
  for (int i = 0; i < 12; ++i) gov[i] = static_cast<float>(i % 9 - 3) / 5;
  HostTensor x = make_tensor<float>({1, 4, 4, 4}, xv);
  HostTensor w = make_tensor<float>({2, 2, 2, 2}, wv);
  HostTensor go = make_tensor<float>({1, 2, 3, 2}, gov);
  HostTensor gi = zeros_tensor(ScalarType::Float, {1, 4, 4, 4});
  HostTensor gw = zeros_tensor(ScalarType::Float, {2, 2, 2, 2});
  HostTensor gb = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r;
  EValue* mask = bool_list({true, true, true});
  ASSERT_EQ(r.run("aten::convolution_backward.out",
                  {r.tensor(go), r.tensor(x), r.tensor(w), r.int_list({2}), r.int_list({2, 1}),
                   r.int_list({1, 0}), r.int_list({1, 2}), r.b(false), r.int_list({0, 0}), r.i(2),
                   mask, r.tensor(gi), r.tensor(gw), r.tensor(gb)}),
            Error::Ok);
  expect_close(gi.values<float>(),
               {0.0f,       0.0f,       -0.2f,      -0.133333f, 0.133333f,  0.0f,       0.066667f,
                0.0f,       0.0f,       0.0f,       -0.066667f, 0.0f,       -0.133333f, -0.266667f,
                -0.066667f, -0.133333f, 0.2f,       0.133333f,  0.0f,       0.0f,       -0.133333f,
                0.0f,       0.133333f,  0.0f,       0.066667f,  0.0f,       0.0f,       0.0f,
                0.133333f,  0.266667f,  -0.133333f, -0.266667f, -0.4f,      -0.533333f, -0.2f,
                -0.266667f, 0.333333f,  -0.2f,      0.666667f,  -0.4f,      -0.666667f, 0.4f,
                -0.333333f, 0.2f,       -0.133333f, -0.066667f, -0.266667f, -0.133333f, 0.4f,
                0.533333f,  -0.4f,      -0.533333f, 0.0f,       0.0f,       0.333333f,  -0.2f,
                0.666667f,  -0.4f,      -0.666667f, 0.4f,       0.0f,       0.0f,       -0.133333f,
                -0.066667f},
               1e-5, 1e-5);
  expect_close(gw.values<float>(),
               {0.35f, -0.5f, 0.75f, 0.15f, -0.5f, 0.05f, 0.15f, -0.45f, -0.25f, -0.35f, 0.6f,
                -0.6f, -0.35f, -0.1f, -0.6f, -0.75f},
               1e-5, 1e-5);
  expect_close(gb.values<float>(), {-0.6f, 1.2f}, 1e-5, 1e-6);
}

// x1 = [[[1, 2, -1, 0.5, 3], [0, 1, 1, -2, 1]]] (float64), w1 [3, 2, 2] below,
// go1 = torch.arange(9.).reshape(1, 3, 3) - 2;
// convolution_backward(go1, x1, w1, None, [2], [1], [1], False, [0], 1, [True, False, True])
TEST(OpConvolutionBackwardTest, Strided1dWithMask) {
  HostTensor x = make_tensor<double>({1, 2, 5}, {1, 2, -1, 0.5, 3, 0, 1, 1, -2, 1});
  HostTensor w = make_tensor<double>({3, 2, 2}, {1, -1, 0.5, 2, 0, 1, 1, 1, 2, 0, -1, 0.5});
  HostTensor go = make_tensor<double>({1, 3, 3}, iota<double>(9, -2));
  HostTensor gi = zeros_tensor(ScalarType::Double, {1, 2, 5});
  HostTensor gw = make_tensor<double>({1}, {7});  // masked off: left untouched
  HostTensor gb = zeros_tensor(ScalarType::Double, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::convolution_backward.out",
                  {r.tensor(go), r.tensor(x), r.tensor(w), r.none(), r.int_list({2}),
                   r.int_list({1}), r.int_list({1}), r.b(false), r.int_list({0}), r.i(1),
                   bool_list({true, false, true}), r.tensor(gi), r.tensor(gw), r.tensor(gb)}),
            Error::Ok);
  expect_close(gi.values<double>(), {3, 9, 3, 12, 3, -1, -3.5, 2.5, -3, 6}, 1e-12, 1e-12);
  EXPECT_EQ(gw.values<double>(), std::vector<double>{7});
  expect_close(gb.values<double>(), {-3, 6, 15}, 1e-12, 1e-12);
}

TEST(OpConvolutionBackwardTest, Refusals) {
  HostTensor x = zeros_tensor(ScalarType::Float, {1, 2, 5});
  HostTensor w = zeros_tensor(ScalarType::Float, {3, 2, 2});
  HostTensor go = zeros_tensor(ScalarType::Float, {1, 3, 4});
  HostTensor gi = zeros_tensor(ScalarType::Float, {1, 2, 5});
  HostTensor gw = zeros_tensor(ScalarType::Float, {3, 2, 2});
  HostTensor gb = zeros_tensor(ScalarType::Float, {3});
  auto call = [&](KernelRunner& r, bool transposed, int64_t stride, HostTensor& grad_out,
                  HostTensor& weight) {
    return std::vector<EValue*>{r.tensor(grad_out),
                                r.tensor(x),
                                r.tensor(weight),
                                r.none(),
                                r.int_list({stride}),
                                r.int_list({0}),
                                r.int_list({1}),
                                r.b(transposed),
                                r.int_list({0}),
                                r.i(1),
                                bool_list({true, true, true}),
                                r.tensor(gi),
                                r.tensor(gw),
                                r.tensor(gb)};
  };
  KernelRunner r;
  ASSERT_EQ(r.run("aten::convolution_backward.out", call(r, false, 1, go, w)), Error::Ok);
  // Stride 0: malformed, at load. Transposed with this weight ([3, 2, 2]
  // needs 3 input channels, the input has 2): prepared, refused in run.
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::convolution_backward.out", call(r2, true, 1, go, w)), Error::Ok);
  KernelRunner r4;
  EXPECT_EQ(r4.run("aten::convolution_backward.out", call(r4, true, 1, go, w)),
            Error::InvalidArgument);
  EXPECT_EQ(r2.prepare("aten::convolution_backward.out", call(r2, false, 0, go, w)),
            Error::InvalidArgument);
  // Integer tensors: refused by the dtype set.
  HostTensor wi = zeros_tensor(ScalarType::Int, {3, 2, 2});
  EXPECT_EQ(r2.prepare("aten::convolution_backward.out", call(r2, false, 1, go, wi)),
            Error::InvalidType);
  // grad_output not of the convolution's output shape: in run.
  HostTensor bad = zeros_tensor(ScalarType::Float, {1, 3, 3});
  KernelRunner r3;
  EXPECT_EQ(r3.run("aten::convolution_backward.out", call(r3, false, 1, bad, w)),
            Error::InvalidArgument);
}

// Transposed convolutions (torch 2.15.0 eager):
// x = ((torch.arange(36.) % 7 - 3) / 4).reshape(1, 4, 3, 3)
// w = (((torch.arange(48.) % 5) - 2) / 3).reshape(4, 3, 2, 2)
// y = torch.ops.aten.convolution(x, w, None, [2, 1], [1, 0], [1, 2], True, [1, 0], 2)  # [1,6,5,5]
// go = (((torch.arange(150.) % 9) - 3) / 5).reshape(1, 6, 5, 5)
// convolution_backward(go, x, w, [6], [2, 1], [1, 0], [1, 2], True, [1, 0], 2,
//                      [True, True, True])
TEST(OpConvolutionBackwardTest, TransposedGrouped2dWithOutputPadding) {
  std::vector<float> xv(36), wv(48), gov(150);
  for (int i = 0; i < 36; ++i) xv[i] = static_cast<float>(i % 7 - 3) / 4;
  for (int i = 0; i < 48; ++i) wv[i] = static_cast<float>(i % 5 - 2) / 3;
  for (int i = 0; i < 150; ++i) gov[i] = static_cast<float>(i % 9 - 3) / 5;
  HostTensor x = make_tensor<float>({1, 4, 3, 3}, xv);
  HostTensor w = make_tensor<float>({4, 3, 2, 2}, wv);
  HostTensor go = make_tensor<float>({1, 6, 5, 5}, gov);
  HostTensor gi = zeros_tensor(ScalarType::Float, {1, 4, 3, 3});
  HostTensor gw = zeros_tensor(ScalarType::Float, {4, 3, 2, 2});
  HostTensor gb = zeros_tensor(ScalarType::Float, {6});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::convolution_backward.out",
                  {r.tensor(go), r.tensor(x), r.tensor(w), r.int_list({6}), r.int_list({2, 1}),
                   r.int_list({1, 0}), r.int_list({1, 2}), r.b(true), r.int_list({1, 0}), r.i(2),
                   bool_list({true, true, true}), r.tensor(gi), r.tensor(gw), r.tensor(gb)}),
            Error::Ok);
  expect_close(gi.values<float>(),
               {-0.8666667f, -1.066667f,  -0.06666666f, -2.0f,        -1.0f,       -0.6f,
                -1.0f,       -0.6f,       0.4000001f,   -0.1333334f,  0.1333333f,  -0.8000001f,
                0.6666667f,  -0.4666667f, -1.0f,        -0.4666667f,  -1.0f,       -0.9333334f,
                1.2f,        -0.2666667f, -0.5333334f,  1.733333f,    -0.6666667f, -0.6666667f,
                -0.6666667f, -0.6666667f, -1.866667f,   -0.06666666f, 0.7333333f,  0.9333334f,
                -0.6000001f, 0.5333334f,  0.4666667f,   0.5333334f,   0.4666667f,  1.6f},
               1e-5, 1e-5);
  expect_close(
      gw.values<float>(),
      {-0.09999999f, 1.35f,  0.4f,   -0.1f,  -0.2f,  -0.09999999f, -1.35f, 0.4f,   -0.3f,  -0.2f,
       0.05f,        -1.35f, -0.45f, 1.25f,  -0.15f, -0.25f,       -0.35f, -0.45f, 0.4f,   -0.15f,
       -0.25f,       -0.35f, -0.4f,  0.4f,   -0.55f, 0.5f,         0.45f,  -0.15f, -1.15f, -0.55f,
       0.15f,        0.45f,  0.05f,  -1.15f, 0.3f,   0.15f,        -0.8f,  -0.15f, -0.2f,  1.15f,
       1.7f,         -0.8f,  -0.2f,  -0.2f,  0.15f,  1.7f,         1.15f,  -0.2f},
      1e-5, 1e-5);
  expect_close(gb.values<float>(), {3.6f, 4.4f, 5.2f, 6.0f, 5.0f, 4.0f}, 1e-5, 1e-5);
}

// x = ((torch.arange(10.) % 4 - 1.5) / 2).reshape(2, 1, 5)
// w = (((torch.arange(6.) % 4) - 1) / 2).reshape(1, 2, 3)
// y = torch.ops.aten.convolution(x, w, None, [3], [1], [2], True, [2], 1)  # [2, 2, 17]
// go = (((torch.arange(68.) % 5) - 2) / 4).reshape(2, 2, 17)
// convolution_backward(go, x, w, [2], [3], [1], [2], True, [2], 1, [True, False, True])
TEST(OpConvolutionBackwardTest, Transposed1dMaskedWeight) {
  std::vector<float> xv(10), wv(6), gov(68);
  for (int i = 0; i < 10; ++i) xv[i] = (static_cast<float>(i % 4) - 1.5f) / 2;
  for (int i = 0; i < 6; ++i) wv[i] = static_cast<float>(i % 4 - 1) / 2;
  for (int i = 0; i < 68; ++i) gov[i] = static_cast<float>(i % 5 - 2) / 4;
  HostTensor x = make_tensor<float>({2, 1, 5}, xv);
  HostTensor w = make_tensor<float>({1, 2, 3}, wv);
  HostTensor go = make_tensor<float>({2, 2, 17}, gov);
  HostTensor gi = zeros_tensor(ScalarType::Float, {2, 1, 5});
  HostTensor gw = make_tensor<float>({1, 2, 3}, {7, 7, 7, 7, 7, 7});
  HostTensor gb = zeros_tensor(ScalarType::Float, {2});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::convolution_backward.out",
                  {r.tensor(go), r.tensor(x), r.tensor(w), r.int_list({2}), r.int_list({3}),
                   r.int_list({1}), r.int_list({2}), r.b(true), r.int_list({2}), r.i(1),
                   bool_list({true, false, true}), r.tensor(gi), r.tensor(gw), r.tensor(gb)}),
            Error::Ok);
  expect_close(gi.values<float>(),
               {0.0f, 0.5f, 0.25f, -0.625f, 0.375f, 0.0f, 0.375f, -0.5f, 0.5f, 0.25f}, 1e-6, 1e-6);
  expect_close(gw.values<float>(), {7, 7, 7, 7, 7, 7}, 0, 0);  // masked: untouched
  expect_close(gb.values<float>(), {-0.75f, 0.0f}, 1e-6, 1e-6);
  // output_padding 3 is neither below the stride (3) nor the dilation (2).
  KernelRunner r2;
  EXPECT_EQ(
      r2.prepare("aten::convolution_backward.out",
                 {r2.tensor(go), r2.tensor(x), r2.tensor(w), r2.int_list({2}), r2.int_list({3}),
                  r2.int_list({1}), r2.int_list({2}), r2.b(true), r2.int_list({3}), r2.i(1),
                  bool_list({true, false, true}), r2.tensor(gi), r2.tensor(gw), r2.tensor(gb)}),
      Error::InvalidArgument);
  // grad_output not of the transposed output's length (16 instead of 17).
  HostTensor short_go = zeros_tensor(ScalarType::Float, {2, 2, 16});
  KernelRunner r3;
  EXPECT_EQ(
      r3.run("aten::convolution_backward.out",
             {r3.tensor(short_go), r3.tensor(x), r3.tensor(w), r3.int_list({2}), r3.int_list({3}),
              r3.int_list({1}), r3.int_list({2}), r3.b(true), r3.int_list({2}), r3.i(1),
              bool_list({true, false, true}), r3.tensor(gi), r3.tensor(gw), r3.tensor(gb)}),
      Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
