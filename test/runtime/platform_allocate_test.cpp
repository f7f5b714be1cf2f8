// The POSIX default allocate hook: requested alignments are honoured, and
// blocks of 2 MiB or more start on a 2 MiB boundary (the huge-page case)
// unless ETR_HUGE_PAGES=0 turned that off for the process.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "runtime/platform/platform.h"

namespace etr {
namespace {

constexpr size_t kTwoMiB = size_t{2} << 20;

bool huge_pages_off() {
  const char* v = std::getenv("ETR_HUGE_PAGES");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

TEST(PlatformAllocateTest, SmallBlocksKeepTheRequestedAlignment) {
  for (size_t alignment : {size_t{8}, size_t{16}, size_t{64}, size_t{4096}}) {
    void* p = platform_allocate(1000, alignment);
    ASSERT_NE(p, nullptr) << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
    std::memset(p, 0x5a, 1000);
    platform_deallocate(p);
  }
}

// With ETR_HUGE_PAGES=0 in the environment only the requested 64-byte
// alignment is promised, and that is what is checked then.
TEST(PlatformAllocateTest, LargeBlocksStartOnA2MiBBoundary) {
  const size_t boundary = huge_pages_off() ? 64 : kTwoMiB;
  const size_t sizes[] = {kTwoMiB, kTwoMiB + 1, 5 * kTwoMiB + 12345};
  for (size_t size : sizes) {
    void* p = platform_allocate(size, 64);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % boundary, 0u) << size;
    // The whole block is usable.
    auto* bytes = static_cast<unsigned char*>(p);
    bytes[0] = 1;
    bytes[size - 1] = 2;
    EXPECT_EQ(bytes[0] + bytes[size - 1], 3);
    platform_deallocate(p);
  }
  // Just under the threshold only the requested alignment holds; the block is usable.
  void* p = platform_allocate(kTwoMiB - 1, 64);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  static_cast<unsigned char*>(p)[kTwoMiB - 2] = 7;
  platform_deallocate(p);
}

}  // namespace
}  // namespace etr
