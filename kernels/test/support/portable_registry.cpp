// The op suite's kernels: the portable library (see kernel_test_util.h).
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {

const KernelRegistry& test_kernel_registry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    EXPECT_EQ(r.add(portable_kernel_library()), Error::Ok);
    EXPECT_EQ(r.add(portable_half_kernel_library()), Error::Ok);
    return r;
  }();
  return registry;
}

ThreadPool* test_thread_pool() { return nullptr; }

}  // namespace testing
}  // namespace etr
