// Helpers for the layout tests (op_channels_last_test.cpp, op_conv3d_test.cpp,
// op_pool3d_test.cpp): tensors in a chosen dim order built from logical
// (row-major) values, logical values read back, and the input pattern the
// generator (gen_convpool_expected.py) uses.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {

inline const std::vector<uint8_t> kChannelsLast = {0, 2, 3, 1};
inline const std::vector<uint8_t> kChannelsLast3d = {0, 2, 3, 4, 1};

// ((i * mul) % mod - mod / 2) * 0.25, as pat() in gen_convpool_expected.py.
template <typename T = float>
std::vector<T> pattern(size_t n, int mul = 37, int mod = 17) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>((static_cast<int>(i) * mul % mod - mod / 2) * 0.25);
  }
  return v;
}

inline size_t count_of(const std::vector<int32_t>& sizes) {
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  return n;
}

// A tensor of `sizes` in `dim_order` (empty: default) whose logical
// (row-major) elements are `logical`.
template <typename T>
HostTensor make_in_order(const std::vector<int32_t>& sizes, const std::vector<T>& logical,
                         std::vector<uint8_t> dim_order = {}) {
  if (dim_order.empty()) return make_tensor<T>(sizes, logical);
  const size_t r = sizes.size();
  std::vector<int64_t> strides(r, 1);
  int64_t step = 1;
  for (size_t k = r; k-- > 0;) {
    strides[dim_order[k]] = step;
    step *= sizes[dim_order[k]];
  }
  std::vector<T> storage(logical.size());
  std::vector<int32_t> pos(r, 0);
  for (size_t k = 0; k < logical.size(); ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d) off += pos[d] * strides[d];
    storage[static_cast<size_t>(off)] = logical[k];
    for (size_t d = r; d-- > 0;) {
      if (++pos[d] < sizes[d]) break;
      pos[d] = 0;
    }
  }
  return make_tensor<T>(sizes, storage, std::move(dim_order));
}

// A zero tensor (DynamicBound) in `dim_order`.
inline HostTensor zeros_in_order(ScalarType dtype, std::vector<int32_t> sizes,
                                 std::vector<uint8_t> dim_order = {}) {
  Result<HostTensor> t =
      HostTensor::zeros(dtype, std::move(sizes), std::move(dim_order), ShapeDynamism::DynamicBound);
  if (!t.ok()) {
    ADD_FAILURE() << "cannot build the test tensor: " << to_string(t.error());
    return *HostTensor::zeros(ScalarType::Float, {0});
  }
  return *std::move(t);
}

// The elements of t in logical (row-major) order, whatever its dim order.
template <typename T>
std::vector<T> logical_values(const HostTensor& t) {
  Result<HostTensor> c = HostTensor::contiguous_copy(t.tensor());
  if (!c.ok()) {
    ADD_FAILURE() << "contiguous_copy failed";
    return {};
  }
  return c->values<T>();
}

// True when t still carries `dim_order` (kernels must not change it).
inline bool has_dim_order(const HostTensor& t, const std::vector<uint8_t>& dim_order) {
  const Span<const uint8_t> d = t.tensor().dim_order();
  if (d.size() != dim_order.size()) return false;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] != dim_order[i]) return false;
  }
  return true;
}

}  // namespace testing
}  // namespace etr
