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
  // Transposed: not supported; stride 0: malformed. Both at load.
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::convolution_backward.out", call(r2, true, 1, go, w)),
            Error::NotSupported);
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

}  // namespace
}  // namespace testing
}  // namespace etr
