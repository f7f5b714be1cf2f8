// The op suite's kernels in the optimized build: the optimized library
// stacked above portable and portable_half, run on a two-thread pool (see
// kernel_test_util.h and optimized_test_util.h).
#include <memory>

#include "extension/threadpool/pthread_pool.h"
#include "kernels/optimized/optimized_kernels.h"
#include "kernels/optimized/test/optimized_test_util.h"
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {

const KernelRegistry& test_kernel_registry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    EXPECT_EQ(r.add(portable_kernel_library()), Error::Ok);
    EXPECT_EQ(r.add(portable_half_kernel_library()), Error::Ok);
    EXPECT_EQ(r.add(optimized_kernel_library()), Error::Ok);
    return r;
  }();
  return registry;
}

const KernelRegistry& portable_reference_registry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    EXPECT_EQ(r.add(portable_kernel_library()), Error::Ok);
    EXPECT_EQ(r.add(portable_half_kernel_library()), Error::Ok);
    return r;
  }();
  return registry;
}

ThreadPool* test_thread_pool() {
  static const std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  return pool.get();
}

}  // namespace testing
}  // namespace etr
