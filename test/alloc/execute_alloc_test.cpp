// Proves Method::execute performs zero heap allocations: every malloc-family
// call from our statically linked code is routed through the __wrap_ hooks
// below (link flags -Wl,--wrap=...), and operator new is replaced, so both
// are counted while a fixture executes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "test/support/fixtures.h"
#include "test/support/in_process.h"

#if ETR_ALLOC_TEST_OPTIMIZED
#include "extension/threadpool/pthread_pool.h"
#include "kernels/optimized/optimized_kernels.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/quantized_kernels.h"
#include "runtime/kernel/registry.h"
#endif

namespace {
std::atomic<long> g_allocations{0};
std::atomic<bool> g_counting{false};
void note() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
}
}  // namespace

extern "C" {
void* __real_malloc(size_t);
void* __real_calloc(size_t, size_t);
void* __real_realloc(void*, size_t);
int __real_posix_memalign(void**, size_t, size_t);
void* __real_aligned_alloc(size_t, size_t);
void* __wrap_malloc(size_t n) {
  note();
  return __real_malloc(n);
}
void* __wrap_calloc(size_t a, size_t b) {
  note();
  return __real_calloc(a, b);
}
void* __wrap_realloc(void* p, size_t n) {
  note();
  return __real_realloc(p, n);
}
int __wrap_posix_memalign(void** p, size_t a, size_t n) {
  note();
  return __real_posix_memalign(p, a, n);
}
void* __wrap_aligned_alloc(size_t a, size_t n) {
  note();
  return __real_aligned_alloc(a, n);
}
}

void* operator new(size_t n) {
  note();
  void* p = __real_malloc(n == 0 ? 1 : n);
  if (p == nullptr) std::abort();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace etr {
namespace {

TEST(ExecuteAllocationTest, PortableFixturesExecuteWithoutHeapAllocation) {
  testing::register_all_kernels();
  const std::vector<testing::FixtureCase> cases = testing::load_manifest();
  ASSERT_GE(cases.size(), testing::kMinManifestCases);
  size_t checked = 0;
  for (const testing::FixtureCase& c : cases) {
    if (!c.expect_error.empty()) continue;
    SCOPED_TRACE(c.line);
    testing::LoadedMethod lm;
    ASSERT_TRUE(testing::load_fixture_method(c, &lm)) << lm.error;
    ASSERT_TRUE(testing::set_fixture_inputs(c, &lm)) << lm.error;
    g_allocations = 0;
    g_counting = true;
    const Error err = lm.method->execute();
    g_counting = false;
    ASSERT_EQ(err, Error::Ok);
    EXPECT_EQ(g_allocations.load(), 0) << "heap allocations during execute";
    ++checked;
  }
  EXPECT_GT(checked, 10u);
}

#if ETR_ALLOC_TEST_OPTIMIZED
// The same with the optimized kernels stacked above the portable ones and a
// 2-thread pool: packing happens at load, scratch comes from the temp
// allocator, and parallel_for hands work to the pool without allocating.
TEST(ExecuteAllocationTest, OptimizedFixturesOnTwoThreadsExecuteWithoutHeapAllocation) {
  KernelRegistry registry;
  for (const KernelLibrary& lib :
       {portable_kernel_library(), portable_half_kernel_library(), prim_ops_library(),
        quantized_kernel_library(), optimized_kernel_library()}) {
    ASSERT_EQ(registry.add(lib), Error::Ok) << lib.name;
  }
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  MethodLoadOptions options;
  options.kernels = &registry;
  options.thread_pool = pool.get();
  const std::vector<testing::FixtureCase> cases = testing::load_manifest();
  size_t checked = 0;
  for (const testing::FixtureCase& c : cases) {
    if (!c.expect_error.empty() || !c.data.empty()) continue;
    SCOPED_TRACE(c.line);
    testing::LoadedMethod lm;
    ASSERT_TRUE(testing::load_fixture_method(c, &lm, &options)) << lm.error;
    // As many runs as the manifest's expected outputs are for (stateful programs).
    for (int run = 0; run < std::max(c.executions, 1); ++run) {
      ASSERT_TRUE(testing::set_fixture_inputs(c, &lm)) << lm.error;
      g_allocations = 0;
      g_counting = true;
      const Error err = lm.method->execute();
      g_counting = false;
      ASSERT_EQ(err, Error::Ok);
      EXPECT_EQ(g_allocations.load(), 0) << "heap allocations during execute " << run;
    }
    EXPECT_EQ(testing::compare_outputs(c, *lm.method), "");
    ++checked;
  }
  EXPECT_GT(checked, 10u);
}
#endif

}  // namespace
}  // namespace etr
