// Tests for eq/ne/lt/le/gt/ge (Tensor and Scalar overloads). Expected values
// were computed with PyTorch eager (CPU) from the same inputs.
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/test/elementwise_test_util.h"

namespace etr {
namespace testing {
namespace {

struct CmpCase {
  const char* name;
  std::vector<int> tensor_expected;  // a {{1, 2.5, nan}, {-1, 3, 2}} vs b {1, 3, nan}
  std::vector<int> scalar_expected;  // int64 {{1, 2, 3}, {4, 5, 6}} vs 2.5
};

class OpComparisonTest : public ::testing::TestWithParam<CmpCase> {};

TEST_P(OpComparisonTest, TensorOverloadBroadcastsWithNan) {
  const CmpCase& c = GetParam();
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, {1.0f, 2.5f, NAN, -1.0f, 3.0f, 2.0f});
  auto b = make_tensor<float>({3}, {1.0f, 3.0f, NAN});
  auto out = static_out(ScalarType::Bool, {2, 3});
  const std::string op = std::string("aten::") + c.name + ".Tensor_out";
  ASSERT_EQ(r.run(op.c_str(), {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), c.tensor_expected);
}

TEST_P(OpComparisonTest, ScalarOverloadPromotesLongToFloat) {
  const CmpCase& c = GetParam();
  KernelRunner r;
  auto a = make_tensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = static_out(ScalarType::Bool, {2, 3});
  const std::string op = std::string("aten::") + c.name + ".Scalar_out";
  ASSERT_EQ(r.run(op.c_str(), {r.tensor(a), r.d(2.5), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), c.scalar_expected);
}

// Every comparison, one case each.
const CmpCase kCmpCases[] = {CmpCase{"eq", {1, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0}},
                             CmpCase{"ne", {0, 1, 1, 1, 0, 1}, {1, 1, 1, 1, 1, 1}},
                             CmpCase{"lt", {0, 1, 0, 1, 0, 0}, {1, 1, 0, 0, 0, 0}},
                             CmpCase{"le", {1, 1, 0, 1, 1, 0}, {1, 1, 0, 0, 0, 0}},
                             CmpCase{"gt", {0, 0, 0, 0, 0, 0}, {0, 0, 1, 1, 1, 1}},
                             CmpCase{"ge", {1, 0, 0, 0, 1, 0}, {0, 0, 1, 1, 1, 1}}};
static_assert(sizeof(kCmpCases) / sizeof(kCmpCases[0]) >= 6, "kCmpCases lost cases");

INSTANTIATE_TEST_SUITE_P(AllOps, OpComparisonTest, ::testing::ValuesIn(kCmpCases),
                         [](const ::testing::TestParamInfo<CmpCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(OpComparisonMiscTest, LongAgainstInt) {
  KernelRunner r;
  auto a = make_tensor<int64_t>({2, 3}, {-17, 5, 12, 3, -4, 19});
  auto b = make_tensor<int32_t>({2, 3}, {3, -2, 5, -4, 1, 2});
  auto out = static_out(ScalarType::Bool, {2, 3});
  ASSERT_EQ(r.run("aten::gt.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}), Error::Ok);
  EXPECT_EQ(bool_values(out), (std::vector<int>{0, 1, 1, 1, 0, 1}));
}

TEST(OpComparisonMiscTest, FloatOutReceivesOnesAndZeros) {
  KernelRunner r;
  auto a = make_tensor<float>({2}, {1.0f, 0.0f});
  auto out = zeros_tensor(ScalarType::Float, {2});
  ASSERT_EQ(r.run("aten::eq.Scalar_out", {r.tensor(a), r.i(1), r.tensor(out)}), Error::Ok);
  expect_close(out.values<float>(), {1.0f, 0.0f});
}

TEST(OpComparisonMiscTest, WrongShapeFails) {
  KernelRunner r;
  auto a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = make_tensor<float>({2}, {1, 2});
  auto out = static_out(ScalarType::Bool, {2, 3});
  EXPECT_EQ(r.run("aten::lt.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
  auto small = static_out(ScalarType::Bool, {3});
  EXPECT_NE(r.run("aten::lt.Scalar_out", {r.tensor(a), r.i(0), r.tensor(small)}), Error::Ok);
}

}  // namespace
}  // namespace testing
}  // namespace etr
