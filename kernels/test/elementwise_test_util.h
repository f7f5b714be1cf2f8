// Small additions to kernel_test_util.h for the elementwise kernel tests:
// bool tensors (std::vector<bool> has no data()) and static-shape outs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {

// A Bool tensor from 0/1 values (row-major).
inline HostTensor make_bool(std::vector<int32_t> sizes, std::vector<int> values) {
  HostTensor t = zeros_tensor(ScalarType::Bool, std::move(sizes), ShapeDynamism::Static);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.tensor().numel());
  auto* p = static_cast<uint8_t*>(t.tensor().mutable_data());
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i] != 0 ? 1 : 0;
  return t;
}

// The elements of a Bool tensor as 0/1.
inline std::vector<int> bool_values(HostTensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.tensor().const_data());
  return std::vector<int>(p, p + t.tensor().numel());
}

// An out tensor whose shape may not change.
inline HostTensor static_out(ScalarType dtype, std::vector<int32_t> sizes) {
  return zeros_tensor(dtype, std::move(sizes), ShapeDynamism::Static);
}

// expect_close that also accepts matching NaNs and same-signed infinities.
template <typename T>
void expect_close_special(const std::vector<T>& actual, const std::vector<T>& expected,
                          double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    const double a = static_cast<double>(actual[k]);
    const double e = static_cast<double>(expected[k]);
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "at element " << k << ": " << a;
    } else if (std::isinf(e)) {
      EXPECT_EQ(a, e) << "at element " << k;
    } else {
      EXPECT_LE(std::abs(a - e), atol + rtol * std::abs(e))
          << "at element " << k << ": " << a << " vs " << e;
    }
  }
}

// The [2, 3, 4] float input shared by the reduction, softmax and layer-norm
// tests (their expected values were computed by PyTorch from it).
inline HostTensor sample_2x3x4() {
  return make_tensor<float>(
      {2, 3, 4}, {1.5f, -2.0f, 3.25f, 0.5f,  4.0f, 5.5f, -6.0f, 7.0f,  0.25f, 8.0f,  -1.0f, 2.0f,
                  9.0f, -3.5f, 1.0f,  0.75f, 2.0f, 2.0f, 6.5f,  -4.0f, 3.0f,  -0.5f, 0.0f,  1.25f});
}

}  // namespace testing
}  // namespace etr
