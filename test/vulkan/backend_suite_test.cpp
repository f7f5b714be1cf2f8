// The BackendInterface suite (test/support/backend_suite.h) on the Vulkan
// delegate's fixtures, on lavapipe (vulkan_backend_test.cpp selects the
// driver before any Vulkan call).
#include "test/support/backend_suite.h"

#include "backends/vulkan/vulkan_backend.h"

namespace etr {
namespace testing {
namespace {

const BackendInterface* vulkan() { return &vulkan_backend(); }

// Programs that are one delegate call from input to output. Tolerances: 2e-3
// of the output's scale (test/models/vulkan/manifest.txt). init allocates
// the delegate object through the platform hook; its bookkeeping comes from
// the heap and its buffers from the Vulkan driver.
const BackendCase kBackendCases[] = {
    BackendCase{"encoder", &vulkan, "vulkan/encoder.pte", "vulkan/encoder/a_in0.npy",
                "vulkan/encoder/a_out0.npy", 0.0, 5.7e-3, "VH00", 1},
    BackendCase{"mlp", &vulkan, "vulkan/mlp.pte", "vulkan/mlp/a_in0.npy", "vulkan/mlp/a_out0.npy",
                0.0, 5.5e-4, "VH00", 1},
    // Exported with a dynamic sequence length (bounds 2..7), run at 5: the
    // corruptions also reach the shape propagation of init.
    BackendCase{"dynamic_decoder", &vulkan, "vulkan/dynamic_decoder.pte",
                "vulkan/dynamic_decoder/a_in0.npy", "vulkan/dynamic_decoder/a_out0.npy", 0.0,
                5.2e-3, "VH00", 1}};
static_assert(sizeof(kBackendCases) / sizeof(kBackendCases[0]) >= 2, "BackendSuite cases");

INSTANTIATE_TEST_SUITE_P(Vulkan, BackendSuite, ::testing::ValuesIn(kBackendCases),
                         [](const ::testing::TestParamInfo<BackendCase>& p) {
                           return p.param.name;
                         });

// Every case above is instantiated, each with the suite's five tests.
TEST(BackendSuiteCases, EveryCaseIsInstantiated) {
  size_t instantiated = 0;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite* suite = unit.GetTestSuite(i);
    if (std::string(suite->name()) == "Vulkan/BackendSuite")
      instantiated += suite->total_test_count();
  }
  EXPECT_GE(instantiated, 5 * (sizeof(kBackendCases) / sizeof(kBackendCases[0])));
}

}  // namespace
}  // namespace testing
}  // namespace etr
