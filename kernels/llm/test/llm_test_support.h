// What the llama:: kernel tests share: a registry holding only the LLM
// kernel library, and the pools each case runs on (none, and three threads
// where the build has a thread pool).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kernels/llm/llm_kernels.h"
#include "runtime/kernel/registry.h"
#if ETR_LLM_TEST_THREADS
#include "extension/threadpool/pthread_pool.h"
#endif

namespace etr {
namespace testing {

inline const KernelRegistry& llm_registry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    EXPECT_EQ(r.add(llm_kernel_library()), Error::Ok);
    return r;
  }();
  return registry;
}

inline std::vector<ThreadPool*> llm_test_pools() {
#if ETR_LLM_TEST_THREADS
  static std::unique_ptr<PthreadPool> pool = PthreadPool::create(3);
  EXPECT_NE(pool, nullptr);
  return {nullptr, pool.get()};
#else
  return {nullptr};
#endif
}

}  // namespace testing
}  // namespace etr
