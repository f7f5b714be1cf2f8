// The BackendInterface suite (test/support/backend_suite.h) on XNNPACK's
// fixtures.
#include "test/support/backend_suite.h"

#include "backends/xnnpack/xnnpack_backend.h"

namespace etr {
namespace testing {
namespace {

const BackendInterface* xnnpack() { return &xnnpack_backend(); }

const BackendCase kBackendCases[] = {
    // At least 3 allocations: the delegate object, its value buffers, its scratch.
    BackendCase{"cnn", &xnnpack, "xnnpack/cnn.pte", "xnnpack/cnn/a_in0.npy",
                "xnnpack/cnn/a_out0.npy", 1e-4, 2.9e-5, "XH00", 3},
    BackendCase{"mlp", &xnnpack, "xnnpack/mlp.pte", "xnnpack/mlp/a_in0.npy",
                "xnnpack/mlp/a_out0.npy", 1e-4, 6.2e-5, "XH00", 3}};
// The suite must not pass by running nothing.
static_assert(sizeof(kBackendCases) / sizeof(kBackendCases[0]) >= 2, "BackendSuite cases");

INSTANTIATE_TEST_SUITE_P(Xnnpack, BackendSuite, ::testing::ValuesIn(kBackendCases),
                         [](const ::testing::TestParamInfo<BackendCase>& p) {
                           return p.param.name;
                         });

// Every case above is instantiated, each with the suite's five tests.
TEST(BackendSuiteCases, EveryCaseIsInstantiated) {
  size_t instantiated = 0;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite* suite = unit.GetTestSuite(i);
    if (std::string(suite->name()) == "Xnnpack/BackendSuite")
      instantiated += suite->total_test_count();
  }
  EXPECT_GE(instantiated, 5 * (sizeof(kBackendCases) / sizeof(kBackendCases[0])));
}

}  // namespace
}  // namespace testing
}  // namespace etr
