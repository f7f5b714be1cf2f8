// aten::cumsum.out. Expected values: torch 2.15.0 eager, torch.cumsum on the
// inputs below (ints and bools accumulate into int64, as torch.cumsum does).
#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpCumsumTest, FloatAlongEachDim) {
  HostTensor x = make_tensor<float>({2, 3}, {1.5f, -2.0f, 3.25f, 0.5f, 4.0f, -1.0f});
  for (int64_t dim : {0, 1, -1}) {
    HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
    KernelRunner r;
    ASSERT_EQ(r.run("aten::cumsum.out", {r.tensor(x), r.i(dim), r.none(), r.tensor(out)}),
              Error::Ok);
    // torch.cumsum(x, 0) and torch.cumsum(x, 1)
    const std::vector<float> expected =
        dim == 0 ? std::vector<float>{1.5f, -2.0f, 3.25f, 2.0f, 2.0f, 2.25f}
                 : std::vector<float>{1.5f, -0.5f, 2.75f, 0.5f, 4.5f, 3.5f};
    EXPECT_EQ(out.values<float>(), expected) << "dim " << dim;
  }
}

TEST(OpCumsumTest, IntAndBoolIntoLong) {
  HostTensor i = make_tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor out = zeros_tensor(ScalarType::Long, {2, 3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::cumsum.out", {r.tensor(i), r.i(1), r.i(4), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
  HostTensor b = make_bool({4}, {1, 0, 1, 1});
  HostTensor bout = zeros_tensor(ScalarType::Long, {4});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::cumsum.out", {r2.tensor(b), r2.i(0), r2.none(), r2.tensor(bout)}),
            Error::Ok);
  EXPECT_EQ(bout.values<int64_t>(), (std::vector<int64_t>{1, 1, 2, 3}));
}

TEST(OpCumsumTest, BadDimAndDtypeAreRefusedAtLoad) {
  HostTensor x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor out = zeros_tensor(ScalarType::Float, {2, 3});
  KernelRunner r;
  EXPECT_EQ(r.prepare("aten::cumsum.out", {r.tensor(x), r.i(2), r.none(), r.tensor(out)}),
            Error::InvalidArgument);
  KernelRunner r2;
  // dtype Long (4) differs from out's Float.
  EXPECT_EQ(r2.prepare("aten::cumsum.out", {r2.tensor(x), r2.i(0), r2.i(4), r2.tensor(out)}),
            Error::InvalidType);
}

}  // namespace
}  // namespace testing
}  // namespace etr
