// pthreadpool_shim.cpp: the libpthreadpool functions on a PthreadPool
// handle visit every grid item exactly once with the right tile starts and
// sizes (for every grid shape XNNPACK uses), across threads; denormals are
// flushed only when asked and the thread's MXCSR is restored; handles of
// libpthreadpool itself are passed on to it; PthreadPool::native() hands
// out the shim in this program (it links libpthreadpool, so the shim's
// definitions are the exported ones).
#include "extension/threadpool/pthreadpool_shim.h"

#include <gtest/gtest.h>

#include <pthreadpool.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "extension/threadpool/pthread_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace etr {
namespace {

// Counts per item of a grid of up to 6 dimensions (last fastest), and the
// threads that ran tasks.
struct Grid {
  explicit Grid(std::vector<size_t> r) : range(std::move(r)) {
    size_t n = 1;
    for (size_t v : range) n *= v;
    hits = std::vector<std::atomic<int>>(n);
  }
  size_t index(const size_t* at) const {
    size_t i = 0;
    for (size_t d = 0; d < range.size(); ++d) i = i * range[d] + at[d];
    return i;
  }
  // A tile: dimension d from start[d], size[d] items.
  void hit(const size_t* start, const size_t* size) {
    {
      std::lock_guard<std::mutex> lock(m);
      threads.insert(std::this_thread::get_id());
    }
    std::vector<size_t> at(start, start + range.size());
    const size_t dims = range.size();
    // Every item of the tile.
    std::vector<size_t> off(dims, 0);
    for (;;) {
      for (size_t d = 0; d < dims; ++d) at[d] = start[d] + off[d];
      hits[index(at.data())].fetch_add(1);
      size_t d = dims;
      while (d > 0) {
        --d;
        if (++off[d] < size[d]) break;
        off[d] = 0;
        if (d == 0) return;
      }
      if (dims == 0) return;
    }
  }
  void expect_each_once(const char* what) {
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << what << " item " << i;
  }
  std::vector<size_t> range;
  std::vector<std::atomic<int>> hits;
  std::mutex m;
  std::set<std::thread::id> threads;
};

// Tile sizes must be the tile except at the end of the range.
void check_tile(size_t start, size_t size, size_t tile, size_t range) {
  EXPECT_EQ(start % tile, 0u);
  EXPECT_EQ(size, std::min(tile, range - start));
}

class ShimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pool_ = PthreadPool::create(2);
    ASSERT_NE(pool_, nullptr);
    handle_ = pool_shim::make_handle(pool_.get());
    ASSERT_NE(handle_, nullptr);
  }
  void TearDown() override { pool_shim::destroy_handle(handle_); }
  std::unique_ptr<PthreadPool> pool_;
  pthreadpool_t handle_ = nullptr;
};

TEST_F(ShimTest, ActiveInThisProgram) {
  EXPECT_TRUE(pool_shim::active());
  EXPECT_EQ(pthreadpool_get_threads_count(handle_), 2u);
  EXPECT_EQ(pthreadpool_get_threads_count(nullptr), 1u);
}

TEST_F(ShimTest, OneAndTwoDimensionalGrids) {
  {
    Grid g({1000});
    pthreadpool_parallelize_1d(
        handle_,
        [](void* c, size_t i) { static_cast<Grid*>(c)->hit(&i, std::vector<size_t>{1}.data()); },
        &g, 1000, 0);
    g.expect_each_once("1d");
  }
  {
    Grid g({1003});
    pthreadpool_parallelize_1d_tile_1d(
        handle_,
        [](void* c, size_t i, size_t n) {
          check_tile(i, n, 10, 1003);
          static_cast<Grid*>(c)->hit(&i, &n);
        },
        &g, 1003, 10, 0);
    g.expect_each_once("1d_tile_1d");
  }
  {
    Grid g({37, 41});
    pthreadpool_parallelize_2d(
        handle_,
        [](void* c, size_t i, size_t j) {
          const size_t s[2] = {i, j}, n[2] = {1, 1};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 37, 41, 0);
    g.expect_each_once("2d");
  }
  {
    Grid g({37, 41});
    pthreadpool_parallelize_2d_tile_1d(
        handle_,
        [](void* c, size_t i, size_t j, size_t nj) {
          check_tile(j, nj, 8, 41);
          const size_t s[2] = {i, j}, n[2] = {1, nj};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 37, 41, 8, 0);
    g.expect_each_once("2d_tile_1d");
  }
  {
    Grid g({37, 41});
    pthreadpool_parallelize_2d_tile_2d(
        handle_,
        [](void* c, size_t i, size_t j, size_t ni, size_t nj) {
          check_tile(i, ni, 6, 37);
          check_tile(j, nj, 16, 41);
          const size_t s[2] = {i, j}, n[2] = {ni, nj};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 37, 41, 6, 16, 0);
    g.expect_each_once("2d_tile_2d");
  }
}

TEST_F(ShimTest, HigherDimensionalGrids) {
  {
    Grid g({3, 13, 17});
    pthreadpool_parallelize_3d_tile_2d(
        handle_,
        [](void* c, size_t i, size_t j, size_t k, size_t nj, size_t nk) {
          check_tile(j, nj, 4, 13);
          check_tile(k, nk, 5, 17);
          const size_t s[3] = {i, j, k}, n[3] = {1, nj, nk};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 3, 13, 17, 4, 5, 0);
    g.expect_each_once("3d_tile_2d");
  }
  {
    Grid g({2, 3, 7, 11});
    pthreadpool_parallelize_4d_tile_2d(
        handle_,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) {
          check_tile(k, nk, 2, 7);
          check_tile(l, nl, 4, 11);
          const size_t s[4] = {i, j, k, l}, n[4] = {1, 1, nk, nl};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 2, 3, 7, 11, 2, 4, 0);
    g.expect_each_once("4d_tile_2d");
  }
  {
    Grid g({2, 2, 3, 5, 9});
    pthreadpool_parallelize_5d_tile_2d(
        handle_,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nl, size_t nm) {
          check_tile(l, nl, 2, 5);
          check_tile(m, nm, 4, 9);
          const size_t s[5] = {i, j, k, l, m}, n[5] = {1, 1, 1, nl, nm};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 2, 2, 3, 5, 9, 2, 4, 0);
    g.expect_each_once("5d_tile_2d");
  }
  {
    Grid g({2, 2, 2, 3, 5, 7});
    pthreadpool_parallelize_6d_tile_2d(
        handle_,
        [](void* c, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nn, size_t nm,
           size_t nnn) {
          check_tile(m, nm, 2, 5);
          check_tile(nn, nnn, 3, 7);
          const size_t s[6] = {i, j, k, l, m, nn}, n[6] = {1, 1, 1, 1, nm, nnn};
          static_cast<Grid*>(c)->hit(s, n);
        },
        &g, 2, 2, 2, 3, 5, 7, 2, 3, 0);
    g.expect_each_once("6d_tile_2d");
  }
  {
    // Empty ranges: no call.
    std::atomic<int> calls{0};
    pthreadpool_parallelize_2d(
        handle_, [](void* c, size_t, size_t) { static_cast<std::atomic<int>*>(c)->fetch_add(1); },
        &calls, 0, 5, 0);
    EXPECT_EQ(calls.load(), 0);
  }
}

// Enough items that both threads take part (the worker spins while the
// caller publishes the next call, so some call sees it).
TEST_F(ShimTest, RunsOnBothThreads) {
  size_t seen = 0;
  for (int attempt = 0; attempt < 50 && seen < 2; ++attempt) {
    Grid g({64});
    pthreadpool_parallelize_1d(
        handle_,
        [](void* c, size_t i) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
          while (std::chrono::steady_clock::now() < until) {
          }
          const size_t n = 1;
          static_cast<Grid*>(c)->hit(&i, &n);
        },
        &g, 64, 0);
    g.expect_each_once("1d on threads");
    seen = g.threads.size();
  }
  EXPECT_EQ(seen, 2u);
}

#if defined(__x86_64__) || defined(__i386__)
TEST_F(ShimTest, DisableDenormalsFlagSetsAndRestoresMxcsr) {
  const unsigned before = _mm_getcsr();
  std::atomic<int> with_flag{0}, without{0};
  pthreadpool_parallelize_1d(
      handle_,
      [](void* c, size_t) {
        if ((_mm_getcsr() & 0x8040u) == 0x8040u) static_cast<std::atomic<int>*>(c)->fetch_add(1);
      },
      &with_flag, 16, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
  EXPECT_EQ(with_flag.load(), 16);
  EXPECT_EQ(_mm_getcsr(), before);
  pthreadpool_parallelize_1d(
      handle_,
      [](void* c, size_t) {
        if ((_mm_getcsr() & 0x8040u) != 0) static_cast<std::atomic<int>*>(c)->fetch_add(1);
      },
      &without, 16, 0);
  EXPECT_EQ(without.load(), 0);
}
#endif

TEST(ShimForeignTest, LibpthreadpoolHandlesGoToLibpthreadpool) {
  pthreadpool_t lib = pthreadpool_create(3);
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(lib), 3u);
  Grid g({500});
  pthreadpool_parallelize_1d_tile_1d(
      lib,
      [](void* c, size_t i, size_t n) {
        check_tile(i, n, 7, 500);
        static_cast<Grid*>(c)->hit(&i, &n);
      },
      &g, 500, 7, 0);
  g.expect_each_once("libpthreadpool 1d_tile_1d");
  pthreadpool_destroy(lib);
}

TEST(ShimForeignTest, NativeHandleIsTheShimUnlessAskedForLibpthreadpool) {
  auto pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  pthreadpool_t h = pool->native();
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(h), 2u);
  Grid g({100});
  pthreadpool_parallelize_1d(
      h,
      [](void* c, size_t i) {
        const size_t n = 1;
        static_cast<Grid*>(c)->hit(&i, &n);
      },
      &g, 100, 0);
  g.expect_each_once("native 1d");
  // A new thread count: a new handle with the new count.
  ASSERT_EQ(pool->set_num_threads(1), Error::Ok);
  pthreadpool_t h1 = pool->native();
  EXPECT_NE(h1, h);
  EXPECT_EQ(pthreadpool_get_threads_count(h1), 1u);

  setenv("ETR_LIBPTHREADPOOL", "1", 1);
  auto lib_pool = PthreadPool::create(2);
  pthreadpool_t lib = lib_pool->native();
  unsetenv("ETR_LIBPTHREADPOOL");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(lib), 2u);
  Grid g2({100});
  pthreadpool_parallelize_1d(
      lib,
      [](void* c, size_t i) {
        const size_t n = 1;
        static_cast<Grid*>(c)->hit(&i, &n);
      },
      &g2, 100, 0);
  g2.expect_each_once("libpthreadpool native 1d");
}

}  // namespace
}  // namespace etr
