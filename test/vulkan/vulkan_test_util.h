// What the Vulkan delegate's test files share: the driver and validation
// setup (Mesa's lavapipe, selected explicitly, unless ETR_VULKAN_TEST_NATIVE
// is set), a fixture that fails a test on any validation message, a registry
// holding only VulkanBackend, and the VH00 wrapper for hand-built payloads.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "backends/vulkan/vulkan_backend.h"
#include "runtime/backend/backend.h"

namespace etr {
namespace testing {

constexpr const char* kLavapipeIcd = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

// Selects the driver manifest: newer loaders read VK_DRIVER_FILES first, older
// ones VK_ICD_FILENAMES, so both are set (a machine that sets either for its
// GPU still runs the lavapipe suite, and a bogus path hides every driver).
inline void select_icd(const char* manifest) {
  setenv("VK_DRIVER_FILES", manifest, 1);
  setenv("VK_ICD_FILENAMES", manifest, 1);
}

// Runs before any Vulkan call: lavapipe and validation unless told otherwise.
inline const bool kVulkanTestEnvironment = [] {
  if (std::getenv("ETR_VULKAN_TEST_NATIVE") == nullptr) select_icd(kLavapipeIcd);
  setenv("ETR_VULKAN_VALIDATION", "1", 0);
  return true;
}();

class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)kVulkanTestEnvironment;
    if (std::getenv("ETR_VULKAN_TEST_NATIVE") == nullptr) {
      ASSERT_TRUE(std::ifstream(kLavapipeIcd).good())
          << kLavapipeIcd << " is missing: install mesa-vulkan-drivers (scripts/install_deps.sh)";
    }
    validation_before_ = vulkan_validation_messages();
  }
  void TearDown() override {
    EXPECT_EQ(vulkan_validation_messages(), validation_before_)
        << "the Vulkan validation layer reported problems (see the log above)";
  }
  size_t validation_before_ = 0;
};

inline const BackendRegistry& vulkan_registry() {
  static const BackendRegistry registry = [] {
    BackendRegistry r;
    EXPECT_EQ(register_vulkan_backend(&r), Error::Ok);
    return r;
  }();
  return registry;
}

// A delegate payload: the VH00 header (30 bytes, padded to 32), the VkGraph
// flatbuffer (padded to 16 when constant bytes follow) and the constants.
inline std::vector<uint8_t> vh00_payload(const uint8_t* flatbuffer, size_t fb_size,
                                         const void* constants = nullptr,
                                         size_t constant_bytes = 0) {
  const size_t fb_end = constant_bytes == 0 ? fb_size : (fb_size + 15) / 16 * 16;
  std::vector<uint8_t> out(32 + fb_end + constant_bytes, 0);
  auto put = [&](size_t at, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  std::memcpy(out.data() + 4, "VH00", 4);
  put(8, 30, 2);
  put(10, 32, 4);
  put(14, fb_size, 4);
  put(18, 32 + fb_end, 4);
  put(22, constant_bytes, 8);
  std::memcpy(out.data() + 32, flatbuffer, fb_size);
  if (constant_bytes != 0) std::memcpy(out.data() + 32 + fb_end, constants, constant_bytes);
  return out;
}

}  // namespace testing
}  // namespace etr
