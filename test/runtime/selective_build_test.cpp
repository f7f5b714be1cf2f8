// The compile-time table filter of the selective build (runtime/kernel/selective_build.h).
// scripts/selective_build_test.sh checks a real selective build end to end.
#include "runtime/kernel/selective_build.h"

#include <gtest/gtest.h>

#include <array>

#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "runtime/kernel/registry.h"

namespace etr {
namespace {

void noop(KernelContext& ctx, EValue* const* args) {
  (void)ctx;
  (void)args;
}

constexpr ArgKind kKinds[] = {ArgKind::Any};

constexpr KernelEntry kTable[] = {
    make_raw_kernel("test::a.out", &noop, kKinds, 1, kAllTypes),
    make_raw_kernel("test::b.out", &noop, kKinds, 1, kAllTypes),
    make_raw_kernel("test::b.Scalar_out", &noop, kKinds, 1, kAllTypes),
    make_raw_kernel("test::c", &noop, kKinds, 1, kAllTypes),
};

constexpr const char* kPick[] = {"test::c", "test::b.out", "test::absent.out", nullptr};
constexpr const char* kNone[] = {nullptr};

// Evaluated at compile time, as the kernel tables are.
constexpr auto kPicked = select_kernels<count_selected(kTable, kPick)>(kTable, kPick);
static_assert(kPicked.size() == 2, "two of the listed names are in the table");
static_assert(count_selected(kTable, nullptr) == 4, "no list keeps every entry");
static_assert(count_selected(kTable, kNone) == 0, "an empty list keeps nothing");

TEST(SelectiveBuild, KeepsListedEntriesInTableOrder) {
  ASSERT_EQ(kPicked.size(), 2u);
  EXPECT_STREQ(kPicked[0].name, "test::b.out");
  EXPECT_STREQ(kPicked[1].name, "test::c");
  EXPECT_EQ(kPicked[0].name_hash, op_name_hash("test::b.out"));
}

TEST(SelectiveBuild, NamesMatchExactly) {
  // A prefix or another overload of a listed name is not selected.
  constexpr const char* kPrefix[] = {"test::b", "test::a.out_", nullptr};
  EXPECT_EQ(count_selected(kTable, kPrefix), 0u);
  constexpr const char* kOverload[] = {"test::b.Scalar_out", nullptr};
  constexpr auto picked = select_kernels<count_selected(kTable, kOverload)>(kTable, kOverload);
  ASSERT_EQ(picked.size(), 1u);
  EXPECT_STREQ(picked[0].name, "test::b.Scalar_out");
}

TEST(SelectiveBuild, EmptySelectionRegisters) {
  constexpr auto none = select_kernels<0>(kTable, kNone);
  KernelRegistry registry;
  EXPECT_EQ(registry.add({"empty", kPortablePriority, {none.data(), none.size()}}), Error::Ok);
  EXPECT_EQ(registry.find("test::a.out"), nullptr);
}

TEST(SelectiveBuild, FullBuildKeepsEveryKernel) {
  // This suite is built without a selection: the libraries keep all their
  // kernels, and the filtered tables stay sorted for bisection.
  EXPECT_EQ(internal::kSelectedOperators, nullptr);
  EXPECT_EQ(prim_ops_kernels().size(), 28u);
  const Span<const KernelEntry> portable = portable_kernels();
  EXPECT_GT(portable.size(), 200u);
  for (size_t i = 1; i < portable.size(); ++i)
    EXPECT_LE(portable[i - 1].name_hash, portable[i].name_hash) << portable[i].name;
  EXPECT_NE(find_kernel_entry(portable, "aten::convolution.out"), nullptr);
}

}  // namespace
}  // namespace etr
