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

TEST(PlatformArenaTest, LargeRequestsShareSlabsAfterTheFirstMegabytes) {
  PlatformArena arena;
  const size_t large = size_t{256} << 10;                     // over a quarter of a 64 KiB chunk
  const size_t own = PlatformArena::kSlabAfterBytes / large;  // chunks of their own first
  std::vector<Request> requests;
  std::vector<uint8_t*> blocks;
  for (size_t i = 0; i < own + 40; ++i) {
    auto* p = static_cast<uint8_t*>(arena.allocate(large, 64));
    ASSERT_NE(p, nullptr) << "request " << i;
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    std::memset(p, static_cast<int>(i), large);
    blocks.push_back(p);
    requests.push_back({large, 64});
  }
  // Every block still holds its own bytes (no two overlap).
  for (size_t i = 0; i < blocks.size(); ++i) {
    ASSERT_EQ(blocks[i][0], static_cast<uint8_t>(i));
    ASSERT_EQ(blocks[i][large - 1], static_cast<uint8_t>(i));
  }
  // `own` chunks of their own (one byte of alignment slack over kSlabAfterBytes
  // takes one more), then slabs of kSlabBytes holding the rest: 40 requests
  // of 256 KiB need 10 MiB, one 16 MiB slab.
  EXPECT_LE(arena.num_chunks(), own + 2);
  EXPECT_GE(arena.num_chunks(), own + 1);
  // A request over a quarter of a slab still gets a chunk of its own.
  const size_t before = arena.num_chunks();
  ASSERT_NE(arena.allocate(PlatformArena::kSlabBytes / 4 + 1, 64), nullptr);
  EXPECT_EQ(arena.num_chunks(), before + 1);
  requests.push_back({PlatformArena::kSlabBytes / 4 + 1, 64});
  // bytes_needed() stays the exact size of one buffer for the same requests.
  size_t used = 0;
  EXPECT_EQ(replay(requests, arena.bytes_needed(), &used), requests.size());
  EXPECT_EQ(used, arena.bytes_needed());
  EXPECT_EQ(replay(requests, arena.bytes_needed() - 1, &used), requests.size() - 1);
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
