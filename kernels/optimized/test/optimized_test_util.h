// Helpers for the optimized kernels' own tests: the portable reference
// registry and random tensors, to check an optimized kernel against the
// portable one over many shapes (the per-op cases with PyTorch's values in
// kernels/test run against the optimized library as well).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/test/kernel_test_util.h"

// For tests of the AVX2 + FMA kernels. On x86-64 those kernels are built and
// every CPU the tests run on has AVX2 + FMA, so a CPU without them fails the
// test (nothing of what it covers would run). Elsewhere the kernels are not
// built at all, which the build decides: the test is an immediate skip.
#if defined(__x86_64__)
#define ETR_REQUIRE_AVX2_KERNELS()                 \
  ASSERT_TRUE(::etr::opt::cpu_features().avx2_fma) \
      << "this x86-64 CPU has no AVX2 + FMA: the kernel under test cannot run"
#else
#define ETR_REQUIRE_AVX2_KERNELS() GTEST_SKIP() << "the AVX2 kernels are built for x86-64 only"
#endif

namespace etr {
namespace testing {

// Only the portable library (and portable_half): the reference.
const KernelRegistry& portable_reference_registry();

// A float tensor of `sizes` with values uniform in [lo, hi).
inline HostTensor random_float_tensor(std::vector<int32_t> sizes, std::mt19937& rng,
                                      float lo = -1.0f, float hi = 1.0f) {
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return make_tensor<float>(std::move(sizes), v);
}

// Every element within atol + rtol * |expected|; shapes equal. `what`
// names the case in a failure.
inline void expect_tensor_close(const HostTensor& actual, const HostTensor& expected, double rtol,
                                double atol, const std::string& what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  const std::vector<float> a = actual.values<float>();
  const std::vector<float> e = expected.values<float>();
  ASSERT_EQ(a.size(), e.size()) << what;
  size_t bad = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double d = std::abs(static_cast<double>(a[k]) - static_cast<double>(e[k]));
    if (!(d <= atol + rtol * std::abs(static_cast<double>(e[k])))) {
      if (++bad <= 3) {
        ADD_FAILURE() << what << ": element " << k << " is " << a[k] << ", reference " << e[k];
      }
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": elements out of tolerance";
}

}  // namespace testing
}  // namespace etr
