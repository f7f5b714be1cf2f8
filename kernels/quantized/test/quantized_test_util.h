// Test helpers for the quantized kernels: a registry holding the quantized
// library (above portable, as executor_runner registers them) and dtype codes.
#pragma once

#include "kernels/quantized/quantized_kernels.h"
#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {

inline const KernelRegistry& quantized_test_registry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    EXPECT_EQ(r.add(portable_kernel_library()), Error::Ok);
    EXPECT_EQ(r.add(quantized_kernel_library()), Error::Ok);
    return r;
  }();
  return registry;
}

// ScalarType codes as the program passes them (Int values).
constexpr int64_t kByte = static_cast<int64_t>(ScalarType::Byte);
constexpr int64_t kChar = static_cast<int64_t>(ScalarType::Char);
constexpr int64_t kShort = static_cast<int64_t>(ScalarType::Short);
constexpr int64_t kLong = static_cast<int64_t>(ScalarType::Long);
constexpr int64_t kFloat = static_cast<int64_t>(ScalarType::Float);
constexpr int64_t kDouble = static_cast<int64_t>(ScalarType::Double);

}  // namespace testing
}  // namespace etr
