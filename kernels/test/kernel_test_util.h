// Helpers for kernel unit tests: owned tensors and a one-kernel runner that
// calls a registered entry the same way the executor does (value pointers
// plus the trailing return slot), after the same argument-kind check.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <vector>

#include "kernels/portable/portable_kernels.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {
namespace testing {

// A tensor that owns its data and metadata (contiguous unless a dim order is given).
class TestTensor {
 public:
  template <typename T>
  static TestTensor make(std::vector<int32_t> sizes, std::vector<T> values,
                         std::vector<uint8_t> dim_order = {}) {
    TestTensor t;
    t.init(scalar_type_for<T>(), std::move(sizes), sizeof(T), std::move(dim_order));
    EXPECT_EQ(values.size() * sizeof(T), t.bytes_.size()) << "value count does not match sizes";
    if (!values.empty()) std::memcpy(t.bytes_.data(), values.data(), t.bytes_.size());
    return t;
  }
  static TestTensor zeros(ScalarType dtype, std::vector<int32_t> sizes,
                          ShapeDynamism dyn = ShapeDynamism::DynamicBound) {
    TestTensor t;
    t.init(dtype, std::move(sizes), element_size(dtype), {}, dyn);
    return t;
  }

  TestTensor() = default;
  TestTensor(TestTensor&& o) noexcept { *this = std::move(o); }
  TestTensor& operator=(TestTensor&& o) noexcept {
    sizes_ = std::move(o.sizes_);
    dim_order_ = std::move(o.dim_order_);
    strides_ = std::move(o.strides_);
    bytes_ = std::move(o.bytes_);
    tensor_ = o.tensor_;
    rebind();
    return *this;
  }

  Tensor& tensor() { return tensor_; }
  template <typename T>
  std::vector<T> values() const {
    std::vector<T> out(static_cast<size_t>(tensor_.numel()));
    std::memcpy(out.data(), bytes_.data(), out.size() * sizeof(T));
    return out;
  }
  std::vector<int32_t> sizes() const {
    return std::vector<int32_t>(tensor_.sizes().begin(), tensor_.sizes().end());
  }

 private:
  template <typename T>
  static constexpr ScalarType scalar_type_for() {
    if constexpr (std::is_same<T, float>::value) return ScalarType::Float;
    if constexpr (std::is_same<T, double>::value) return ScalarType::Double;
    if constexpr (std::is_same<T, int64_t>::value) return ScalarType::Long;
    if constexpr (std::is_same<T, int32_t>::value) return ScalarType::Int;
    if constexpr (std::is_same<T, int16_t>::value) return ScalarType::Short;
    if constexpr (std::is_same<T, int8_t>::value) return ScalarType::Char;
    if constexpr (std::is_same<T, uint8_t>::value) return ScalarType::Byte;
    if constexpr (std::is_same<T, bool>::value) return ScalarType::Bool;
    return ScalarType::Float;
  }
  void init(ScalarType dtype, std::vector<int32_t> sizes, size_t elem,
            std::vector<uint8_t> dim_order, ShapeDynamism dyn = ShapeDynamism::Static) {
    sizes_ = std::move(sizes);
    dim_order_ = std::move(dim_order);
    if (dim_order_.empty()) {
      for (size_t i = 0; i < sizes_.size(); ++i) dim_order_.push_back(static_cast<uint8_t>(i));
    }
    strides_.assign(sizes_.size(), 0);
    size_t n = 1;
    for (int32_t s : sizes_) n *= static_cast<size_t>(s);
    bytes_.assign(n * elem + 1, 0);  // +1 keeps data() non-null for empty tensors
    bytes_.resize(n * elem);
    tensor_ = Tensor(dtype, sizes_.size(), sizes_.data(), dim_order_.data(), strides_.data(),
                     bytes_.data(), dyn);
  }
  void rebind() {
    tensor_.init_raw(tensor_.dtype(), sizes_.size(), sizes_.data(), dim_order_.data(),
                     strides_.data(), bytes_.data(), bytes_.size(), tensor_.shape_dynamism(),
                     tensor_.numel());
  }

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int64_t> strides_;
  std::vector<uint8_t> bytes_;
  Tensor tensor_;
};

// Builds argument values and runs one kernel of the portable library.
class KernelRunner {
 public:
  EValue* tensor(TestTensor& t) { return add(EValue(&t.tensor())); }
  EValue* none() { return add(EValue()); }
  EValue* i(int64_t v) { return add(EValue(v)); }
  EValue* d(double v) { return add(EValue(v)); }
  EValue* b(bool v) { return add(EValue(v)); }
  EValue* str(const char* s) { return add(EValue(StringView(s))); }
  EValue* int_list(std::vector<int64_t> v) {
    auto& items = int_items_.emplace_back();
    for (int64_t x : v) items.push_back(i(x));
    auto& scratch = int_scratch_.emplace_back(v.size());
    return add(EValue(BoxedIntList(items.data(), scratch.data(), v.size())));
  }
  EValue* tensor_list(std::vector<TestTensor*> ts, bool optional = false) {
    auto& items = int_items_.emplace_back();
    for (TestTensor* t : ts) items.push_back(t == nullptr ? none() : tensor(*t));
    return add(EValue(BoxedTensorList(items.data(), items.size()), optional));
  }
  EValue* double_list(std::vector<double> v) {
    auto& store = double_store_.emplace_back(std::move(v));
    return add(EValue(Span<const double>(store.data(), store.size())));
  }

  // Runs `name` (e.g. "aten::add.out") with `args`; the trailing return slot
  // is appended automatically (a copy of the last argument). Returns the
  // kernel's failure state; a kind or count mismatch is a test failure.
  Error run(const char* name, std::vector<EValue*> args) {
    const KernelEntry* entry = find(name);
    if (entry == nullptr) {
      ADD_FAILURE() << "no portable kernel named " << name;
      return Error::OperatorMissing;
    }
    args.push_back(args.empty() ? none() : args.back());
    if (args.size() != entry->num_args) {
      ADD_FAILURE() << name << " expects " << entry->num_args << " args (with return slot), got "
                    << args.size();
      return Error::InvalidArgument;
    }
    for (size_t k = 0; k < args.size(); ++k) {
      if (!arg_kind_accepts(entry->arg_kinds[k], args[k]->tag())) {
        ADD_FAILURE() << name << " arg " << k << ": expected " << to_string(entry->arg_kinds[k])
                      << ", got " << to_string(args[k]->tag());
        return Error::InvalidType;
      }
    }
    std::vector<uint8_t> temp(1 << 20);
    MemoryAllocator temp_alloc(temp.data(), temp.size());
    KernelContext ctx(&temp_alloc);
    entry->fn(ctx, args.data());
    return ctx.failure_state();
  }

  static const KernelEntry* find(const char* name) {
    return find_kernel_entry(portable_kernels(), name);
  }

 private:
  EValue* add(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }
  std::deque<EValue> values_;
  std::deque<std::vector<EValue*>> int_items_;
  std::deque<std::vector<int64_t>> int_scratch_;
  std::deque<std::vector<double>> double_store_;
};

// start, start + step, ... (n values) as T.
template <typename T = float>
std::vector<T> iota(size_t n, T start = T(0), T step = T(1)) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + step * static_cast<T>(i));
  return v;
}

// Element-wise closeness: |a - e| <= atol + rtol * |e|.
template <typename T>
void expect_close(const std::vector<T>& actual, const std::vector<T>& expected,
                  double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    const double a = static_cast<double>(actual[k]);
    const double e = static_cast<double>(expected[k]);
    EXPECT_LE(std::abs(a - e), atol + rtol * std::abs(e)) << "at element " << k;
  }
}

}  // namespace testing
}  // namespace etr
