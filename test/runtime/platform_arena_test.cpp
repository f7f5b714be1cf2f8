// PlatformArena: real, aligned, writable memory from platform-heap chunks,
// and bytes_needed() equal to what a MemoryAllocator over a 64-byte-aligned
// buffer needs for the same requests (one byte less refuses the last one).
#include "runtime/executor/platform_arena.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/platform/platform.h"

namespace etr {
namespace {

struct Request {
  size_t size;
  size_t alignment;
};

// Replays `requests` on a MemoryAllocator of `capacity` bytes at a 64-byte-aligned
// address; returns how many it granted before the first refusal.
size_t replay(const std::vector<Request>& requests, size_t capacity, size_t* used) {
  void* buffer = std::aligned_alloc(64, (capacity + 64) / 64 * 64);
  MemoryAllocator fixed(buffer, capacity);
  size_t granted = 0;
  for (const Request& r : requests) {
    if (fixed.allocate(r.size, r.alignment) == nullptr) break;
    ++granted;
  }
  *used = fixed.used();
  std::free(buffer);
  return granted;
}

TEST(PlatformArenaTest, BytesNeededIsExactForAlignmentsUpTo64) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    PlatformArena arena(4096);
    std::vector<Request> requests;
    const size_t n = 1 + rng() % 200;
    for (size_t i = 0; i < n; ++i) {
      const size_t alignment = size_t{1} << (rng() % 7);  // 1 .. 64
      // Mostly small, sometimes zero, sometimes larger than a chunk.
      const size_t kind = rng() % 10;
      const size_t size = kind == 0 ? 0 : kind == 1 ? 3000 + rng() % 20000 : rng() % 300;
      void* p = arena.allocate(size, alignment);
      ASSERT_NE(p, nullptr);
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u);
      std::memset(p, 0xab, size);  // real memory (a sanitizer build checks the bounds)
      requests.push_back({size, alignment});
    }
    size_t used = 0;
    EXPECT_EQ(replay(requests, arena.bytes_needed(), &used), requests.size());
    EXPECT_EQ(used, arena.bytes_needed());
    // Trailing zero-size requests with no padding fit in any buffer; drop
    // them so "one byte less" refuses a real one.
    while (!requests.empty() && requests.back().size == 0) requests.pop_back();
    if (requests.empty()) continue;
    PlatformArena again(4096);
    for (const Request& r : requests) ASSERT_NE(again.allocate(r.size, r.alignment), nullptr);
    EXPECT_EQ(replay(requests, again.bytes_needed() - 1, &used), requests.size() - 1);
    EXPECT_GE(again.bytes_reserved(), again.bytes_needed());
  }
}

TEST(PlatformArenaTest, LargerAlignmentsAreCountedWithTheWorstCasePadding) {
  PlatformArena arena;
  ASSERT_NE(arena.allocate(1, 1), nullptr);
  void* p = arena.allocate(10, 256);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  // 1 byte, padding to 64, then up to 256 - 64 more: 64 + 192 + 10.
  EXPECT_EQ(arena.bytes_needed(), 266u);
  size_t used = 0;
  EXPECT_EQ(replay({{1, 1}, {10, 256}}, arena.bytes_needed(), &used), 2u);
}

TEST(PlatformArenaTest, BadAlignmentIsRefusedAndResetFreesEverything) {
  PlatformArena arena(4096);
  EXPECT_EQ(arena.allocate(8, 3), nullptr);
  EXPECT_EQ(arena.allocate(8, 0), nullptr);
  EXPECT_EQ(arena.bytes_needed(), 0u);
  ASSERT_NE(arena.allocate(100000, 64), nullptr);  // a chunk of its own
  ASSERT_NE(arena.allocate(100, 16), nullptr);
  EXPECT_EQ(arena.num_chunks(), 2u);
  arena.reset();
  EXPECT_EQ(arena.num_chunks(), 0u);
  EXPECT_EQ(arena.bytes_needed(), 0u);
  EXPECT_EQ(arena.bytes_reserved(), 0u);
}

TEST(PlatformArenaTest, NoHeapFailsEveryRequest) {
  const PlatformHooks saved = platform_hooks();
  PlatformHooks no_heap = saved;
  no_heap.allocate = [](size_t, size_t) -> void* { return nullptr; };
  set_platform_hooks(no_heap);
  PlatformArena arena;
  void* p = arena.allocate(16, 16);
  const bool failed = arena.heap_failed();
  set_platform_hooks(saved);
  EXPECT_EQ(p, nullptr);
  EXPECT_TRUE(failed);
  EXPECT_EQ(arena.bytes_needed(), 0u);
}

}  // namespace
}  // namespace etr
