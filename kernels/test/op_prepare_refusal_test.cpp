// Load-time refusals: kernels whose checks depend only on what is fixed at
// method load (dtypes, ranks, dims, constant arguments, list lengths) refuse
// an invalid call in their prepare step, i.e. KernelRunner::prepare() fails
// before anything runs. Checks on sizes or data stay in run(): the last
// tests show a call that prepare accepts and run() refuses.
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

TEST(OpPrepareRefusalTest, PermuteCopyRepeatedDim) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3, 4});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  EXPECT_EQ(
      r.prepare("aten::permute_copy.out", {r.tensor(x), r.int_list({0, 2, 0}), r.tensor(out)}),
      Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, PermuteCopyWrongDimCount) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3, 4});
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 4});
  EXPECT_EQ(r.prepare("aten::permute_copy.out", {r.tensor(x), r.int_list({1, 0}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, TransposeDimOutOfRange) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {3, 2});
  EXPECT_EQ(r.prepare("aten::transpose_copy.int_out", {r.tensor(x), r.i(0), r.i(2), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, SumDtypeArgumentDiffersFromOut) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {2});
  EXPECT_EQ(r.prepare("aten::sum.IntList_out",
                      {r.tensor(x), r.int_list({1}), r.b(false),
                       r.i(static_cast<int64_t>(ScalarType::Double)), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpPrepareRefusalTest, MeanIntegerOut) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Long, {2});
  EXPECT_EQ(r.prepare("aten::mean.out",
                      {r.tensor(x), r.int_list({1}), r.b(false), r.none(), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpPrepareRefusalTest, AmaxRepeatedDim) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {2});
  EXPECT_EQ(
      r.prepare("aten::amax.out", {r.tensor(x), r.int_list({1, -1}), r.b(false), r.tensor(out)}),
      Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, ReductionOutOfWrongRank) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {2, 1});  // keepdim=False gives rank 1
  EXPECT_EQ(r.prepare("aten::amin.out", {r.tensor(x), r.int_list({1}), r.b(false), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, ArgmaxOutNotLong) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Int, {2});
  EXPECT_EQ(r.prepare("aten::argmax.out", {r.tensor(x), r.i(1), r.b(false), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpPrepareRefusalTest, SliceCopyStepZero) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4, 3});
  auto out = zeros_tensor(ScalarType::Float, {4, 3});
  EXPECT_EQ(r.prepare("aten::slice_copy.Tensor_out",
                      {r.tensor(x), r.i(0), r.i(0), r.i(4), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, SelectCopyOutDtype) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4, 3});
  auto out = zeros_tensor(ScalarType::Double, {3});
  EXPECT_EQ(r.prepare("aten::select_copy.int_out", {r.tensor(x), r.i(0), r.i(1), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpPrepareRefusalTest, IndexSelectFloatIndex) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4, 3});
  auto index = zeros_tensor(ScalarType::Float, {2});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(
      r.prepare("aten::index_select.out", {r.tensor(x), r.i(0), r.tensor(index), r.tensor(out)}),
      Error::InvalidType);
}

TEST(OpPrepareRefusalTest, CatOutDtypeNotMatching) {
  KernelRunner r;
  // Half is not converted: it can only be copied into a Half out.
  auto a = zeros_tensor(ScalarType::Half, {2, 3});
  auto b = zeros_tensor(ScalarType::Half, {1, 3});
  auto out = zeros_tensor(ScalarType::Float, {3, 3});
  EXPECT_EQ(r.prepare("aten::cat.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}),
            Error::InvalidType);
}

TEST(OpPrepareRefusalTest, CatDimOutOfRange) {
  KernelRunner r;
  auto a = zeros_tensor(ScalarType::Float, {2, 3});
  auto b = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {4, 3});
  EXPECT_EQ(r.prepare("aten::cat.out", {r.tensor_list({&a, &b}), r.i(2), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, StackRanksDiffer) {
  KernelRunner r;
  auto a = zeros_tensor(ScalarType::Float, {2, 3});
  auto b = zeros_tensor(ScalarType::Float, {6});
  auto out = zeros_tensor(ScalarType::Float, {2, 2, 3});
  EXPECT_EQ(r.prepare("aten::stack.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, SplitCopyNegativeSplitSize) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4});
  auto o0 = zeros_tensor(ScalarType::Float, {2});
  auto o1 = zeros_tensor(ScalarType::Float, {2});
  EXPECT_EQ(r.prepare("aten::split_copy.Tensor_out",
                      {r.tensor(x), r.i(-2), r.i(0), r.tensor_list({&o0, &o1})}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, SplitWithSizesListLengths) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4});
  auto o0 = zeros_tensor(ScalarType::Float, {2});
  auto o1 = zeros_tensor(ScalarType::Float, {2});
  EXPECT_EQ(r.prepare("aten::split_with_sizes_copy.out",
                      {r.tensor(x), r.int_list({1, 1, 2}), r.i(0), r.tensor_list({&o0, &o1})}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, PixelShuffleZeroFactor) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {1, 4, 2, 2});
  auto out = zeros_tensor(ScalarType::Float, {1, 1, 4, 4});
  EXPECT_EQ(r.prepare("aten::pixel_shuffle.out", {r.tensor(x), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, FlipRepeatedDim) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.prepare("aten::flip.out", {r.tensor(x), r.int_list({1, -1}), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, ArangeStepZero) {
  KernelRunner r;
  auto out = zeros_tensor(ScalarType::Float, {4});
  EXPECT_EQ(r.prepare("aten::arange.start_out", {r.i(0), r.i(4), r.i(0), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, FullLikeInvalidMemoryFormat) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {2, 3});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  EXPECT_EQ(r.prepare("aten::full_like.out", {r.tensor(x), r.d(1.5), r.i(9), r.tensor(out)}),
            Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, ComparisonOutOfWrongRank) {
  KernelRunner r;
  auto a = zeros_tensor(ScalarType::Float, {2, 3});
  auto b = zeros_tensor(ScalarType::Float, {3});
  auto out = zeros_tensor(ScalarType::Bool, {6});
  EXPECT_EQ(r.prepare("aten::lt.Tensor_out", {r.tensor(a), r.tensor(b), r.tensor(out)}),
            Error::InvalidArgument);
}

// Size- and data-dependent checks stay in run(): prepare accepts these calls.

TEST(OpPrepareRefusalTest, SelectIndexOutOfRangeIsRefusedInRun) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4, 3});
  auto out = zeros_tensor(ScalarType::Float, {3});
  ASSERT_EQ(r.prepare("aten::select_copy.int_out", {r.tensor(x), r.i(0), r.i(4), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(r.run_prepared(), Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, IndexValueOutOfRangeIsRefusedInRun) {
  KernelRunner r;
  auto x = zeros_tensor(ScalarType::Float, {4, 3});
  auto index = make_tensor<int64_t>({2}, {1, 4});
  auto out = zeros_tensor(ScalarType::Float, {2, 3});
  ASSERT_EQ(
      r.prepare("aten::index_select.out", {r.tensor(x), r.i(0), r.tensor(index), r.tensor(out)}),
      Error::Ok);
  EXPECT_EQ(r.run_prepared(), Error::InvalidArgument);
}

TEST(OpPrepareRefusalTest, CatSizeMismatchIsRefusedInRun) {
  KernelRunner r;
  auto a = zeros_tensor(ScalarType::Float, {2, 3});
  auto b = zeros_tensor(ScalarType::Float, {2, 4});
  auto out = zeros_tensor(ScalarType::Float, {4, 3});
  ASSERT_EQ(r.prepare("aten::cat.out", {r.tensor_list({&a, &b}), r.i(0), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(r.run_prepared(), Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
