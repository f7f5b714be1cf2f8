// aten::max_pool2d_with_indices_backward.grad_input. Expected values: torch
// 2.15.0 eager, torch.ops.aten.max_pool2d_with_indices (for the indices)
// and max_pool2d_with_indices_backward on the inputs below.
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpMaxPool2dBackwardTest, Unbatched) {
  // x = [[[1, 5, 2, 0], [3, 4, 8, 6], [7, 2, 1, 9]]]; kernel [2, 2], stride [1, 1]:
  // indices [[[1, 6, 6], [8, 6, 11]]]; go = [[[1, 2, 3], [4, 5, 6]]]
  HostTensor x = make_tensor<float>({1, 3, 4}, {1, 5, 2, 0, 3, 4, 8, 6, 7, 2, 1, 9});
  HostTensor go = make_tensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor idx = make_tensor<int64_t>({1, 2, 3}, {1, 6, 6, 8, 6, 11});
  HostTensor gi = make_tensor<float>({1, 3, 4}, std::vector<float>(12, 7.0f));
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::max_pool2d_with_indices_backward.grad_input",
            {r.tensor(go), r.tensor(x), r.int_list({2, 2}), r.int_list({1, 1}), r.int_list({0, 0}),
             r.int_list({1, 1}), r.b(false), r.tensor(idx), r.tensor(gi)}),
      Error::Ok);
  EXPECT_EQ(gi.values<float>(), (std::vector<float>{0, 1, 0, 0, 0, 0, 10, 0, 4, 0, 0, 6}));
}

TEST(OpMaxPool2dBackwardTest, BatchedDouble) {
  // xb = torch.arange(36.).reshape(2, 2, 3, 3) % 5 (float64); kernel [2, 2], stride [2, 2],
  // padding [1, 1], ceil_mode=True; gob = torch.arange(16.).reshape(2, 2, 2, 2) + 1
  std::vector<double> xv(36);
  for (int i = 0; i < 36; ++i) xv[i] = i % 5;
  HostTensor x = make_tensor<double>({2, 2, 3, 3}, xv);
  HostTensor go = make_tensor<double>({2, 2, 2, 2}, iota<double>(16, 1));
  HostTensor idx =
      make_tensor<int64_t>({2, 2, 2, 2}, {0, 2, 3, 4, 0, 2, 3, 5, 0, 1, 6, 5, 0, 2, 6, 7});
  HostTensor gi = zeros_tensor(ScalarType::Double, {2, 2, 3, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::max_pool2d_with_indices_backward.grad_input",
                  {r.tensor(go), r.tensor(x), r.int_list({2}), r.int_list({}), r.int_list({1}),
                   r.int_list({1}), r.b(true), r.tensor(idx), r.tensor(gi)}),
            Error::Ok);
  EXPECT_EQ(gi.values<double>(),
            (std::vector<double>{1, 0,  2, 3, 4, 0,  0,  0, 0, 5,  0, 6,  7, 0, 8, 0,  0,  0,
                                 9, 10, 0, 0, 0, 12, 11, 0, 0, 13, 0, 14, 0, 0, 0, 15, 16, 0}));
}

TEST(OpMaxPool2dBackwardTest, Refusals) {
  HostTensor x = zeros_tensor(ScalarType::Float, {1, 3, 4});
  HostTensor go = zeros_tensor(ScalarType::Float, {1, 2, 3});
  HostTensor gi = zeros_tensor(ScalarType::Float, {1, 3, 4});
  auto args = [&](KernelRunner& r, HostTensor& self, HostTensor& grad, HostTensor& index,
                  std::vector<int64_t> kernel) {
    return std::vector<EValue*>{r.tensor(grad),     r.tensor(self),     r.int_list(kernel),
                                r.int_list({1, 1}), r.int_list({0, 0}), r.int_list({1, 1}),
                                r.b(false),         r.tensor(index),    r.tensor(gi)};
  };
  // An index outside the 12 positions of a plane (torch does not check): refused in run.
  HostTensor bad = make_tensor<int64_t>({1, 2, 3}, {0, 1, 2, 3, 4, 12});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::max_pool2d_with_indices_backward.grad_input", args(r, x, go, bad, {2, 2})),
            Error::InvalidArgument);
  // At load: Long self ("max_pool2d_backward" not implemented for 'Long'), Int indices,
  // a kernel_size of three entries.
  HostTensor xl = zeros_tensor(ScalarType::Long, {1, 3, 4});
  HostTensor gol = zeros_tensor(ScalarType::Long, {1, 2, 3});
  HostTensor ok = zeros_tensor(ScalarType::Long, {1, 2, 3});
  HostTensor ii = zeros_tensor(ScalarType::Int, {1, 2, 3});
  KernelRunner r2;
  EXPECT_EQ(r2.prepare("aten::max_pool2d_with_indices_backward.grad_input",
                       args(r2, xl, gol, ok, {2, 2})),
            Error::InvalidType);
  EXPECT_EQ(
      r2.prepare("aten::max_pool2d_with_indices_backward.grad_input", args(r2, x, go, ii, {2, 2})),
      Error::InvalidType);
  EXPECT_EQ(r2.prepare("aten::max_pool2d_with_indices_backward.grad_input",
                       args(r2, x, go, ok, {2, 2, 2})),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
