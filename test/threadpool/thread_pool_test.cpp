// PthreadPool: every index exactly once in chunks of at least the grain, work
// on more than one thread, run-time thread counts, and one pool shared by
// concurrent callers. scripts/tsan.sh runs this suite under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "extension/threadpool/pthread_pool.h"

namespace etr {
namespace {

void expect_exact_cover(ThreadPool* pool, size_t n, size_t grain) {
  std::vector<std::atomic<int>> hits(n);
  std::atomic<size_t> short_chunks{0};
  parallel_for(pool, n, grain, [&](size_t b, size_t e) {
    if (e - b < grain && e != n) ++short_chunks;  // only the last chunk may be short
    for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " grain=" << grain << " i=" << i;
  EXPECT_EQ(short_chunks.load(), 0u) << "n=" << n << " grain=" << grain;
}

TEST(ThreadPoolTest, CoversEveryIndexOnceInChunksOfTheGrain) {
  auto pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->num_threads(), 2u);
  for (size_t n : {0u, 1u, 2u, 7u, 64u, 1000u, 4099u}) {
    for (size_t grain : {1u, 3u, 16u, 5000u}) expect_exact_cover(pool.get(), n, grain);
  }
  expect_exact_cover(nullptr, 100, 7);  // no pool: inline
}

TEST(ThreadPoolTest, WorkRunsOnMoreThanOneThread) {
  auto pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  std::mutex m;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  pool->parallel_for(2, 1, [&](size_t, size_t) {
    {
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
    }
    // Wait (bounded) for the other chunk, so both run at once when two threads exist.
    ++arrived;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ThreadPoolTest, ThreadCountChangesAtRunTime) {
  auto pool = PthreadPool::create(1);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->num_threads(), 1u);
  ASSERT_EQ(pool->set_num_threads(3), Error::Ok);
  EXPECT_EQ(pool->num_threads(), 3u);
  expect_exact_cover(pool.get(), 999, 4);
  ASSERT_EQ(pool->set_num_threads(0), Error::Ok);
  EXPECT_EQ(pool->num_threads(), default_thread_count());
}

TEST(ThreadPoolTest, OnePoolSharedByConcurrentCallers) {
  auto pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  auto caller = [&](int64_t* result) {
    for (int rep = 0; rep < 200; ++rep) {
      std::vector<int64_t> partial(64, 0);
      pool->parallel_for(64, 8, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) partial[i] = static_cast<int64_t>(i) * (rep + 1);
      });
      for (int64_t v : partial) *result += v;
    }
  };
  int64_t a = 0, b = 0;
  std::thread t1(caller, &a), t2(caller, &b);
  t1.join();
  t2.join();
  // sum over rep of (rep+1) * sum(0..63) = 20100 * 2016
  EXPECT_EQ(a, 20100 * 2016);
  EXPECT_EQ(b, 20100 * 2016);
}

}  // namespace
}  // namespace etr
