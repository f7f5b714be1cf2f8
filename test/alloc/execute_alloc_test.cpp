// Proves Method::execute performs zero heap allocations: every malloc-family
// call from our statically linked code is routed through the __wrap_ hooks
// below (link flags -Wl,--wrap=...), and operator new is replaced, so both
// are counted while a fixture executes.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "test/support/in_process.h"

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
  ASSERT_FALSE(cases.empty());
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

}  // namespace
}  // namespace etr
