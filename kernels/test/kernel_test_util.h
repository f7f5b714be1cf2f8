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

#include "extension/tensor/host_tensor.h"
#include "kernels/portable/portable_kernels.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {
namespace testing {

// Tensors in kernel tests are HostTensors (extension/tensor, the one owning
// tensor type). These shorthands make a construction failure a test failure
// (the returned stand-in is an empty Float tensor).
template <typename T>
HostTensor make_tensor(std::vector<int32_t> sizes, const std::vector<T>& values,
                       std::vector<uint8_t> dim_order = {}) {
  Result<HostTensor> t = HostTensor::from_values<T>(std::move(sizes), values, std::move(dim_order),
                                                    ShapeDynamism::DynamicBound);
  if (!t.ok()) {
    ADD_FAILURE() << "cannot build the test tensor: " << to_string(t.error());
    return *HostTensor::zeros(ScalarType::Float, {0});
  }
  return *std::move(t);
}

// A zero-filled tensor; DynamicBound by default so kernels may resize it
// within its initial size.
inline HostTensor zeros_tensor(ScalarType dtype, std::vector<int32_t> sizes,
                               ShapeDynamism dynamism = ShapeDynamism::DynamicBound) {
  Result<HostTensor> t = HostTensor::zeros(dtype, std::move(sizes), {}, dynamism);
  if (!t.ok()) {
    ADD_FAILURE() << "cannot build the test tensor: " << to_string(t.error());
    return *HostTensor::zeros(ScalarType::Float, {0});
  }
  return *std::move(t);
}

// The kernels under test. The op suite is linked twice: with
// kernels/test/support/portable_registry.cpp (the portable library and
// portable_half) and with kernels/optimized/test/support/optimized_registry.cpp
// (the optimized library stacked above them, as in a loaded method: it runs
// where its prepare accepts and falls back to portable elsewhere), so every
// case with PyTorch's values checks both.
const KernelRegistry& test_kernel_registry();
// The pool kernels get in tests (null: single-threaded; the optimized build
// runs on two threads so threaded paths are exercised).
ThreadPool* test_thread_pool();

// Builds argument values and runs one kernel call the way a loaded method
// does: KernelRegistry::select() (the loader's own choice) binds the first
// kernel in priority order whose argument kinds and declared dtypes fit and
// whose prepare step accepts the call (with its per-instruction state), then
// it runs. A refusal is returned like the loader returns it: the last
// decline's code, or a prepare step's real failure.
class KernelRunner {
 public:
  explicit KernelRunner(const KernelRegistry& registry = test_kernel_registry(),
                        ThreadPool* pool = test_thread_pool())
      : registry_(&registry),
        pool_(pool),
        method_bytes_(1 << 20),
        method_alloc_(method_bytes_.data(), method_bytes_.size()) {}
  EValue* tensor(HostTensor& t) { return add(EValue(&t.tensor())); }
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
  EValue* tensor_list(std::vector<HostTensor*> ts, bool optional = false) {
    auto& items = int_items_.emplace_back();
    for (HostTensor* t : ts) items.push_back(t == nullptr ? none() : tensor(*t));
    return add(EValue(BoxedTensorList(items.data(), items.size()), optional));
  }
  EValue* double_list(std::vector<double> v) {
    auto& store = double_store_.emplace_back(std::move(v));
    return add(EValue(Span<const double>(store.data(), store.size())));
  }

  // Runs `name` (e.g. "aten::add.out") with `args`; the trailing return slot
  // is appended automatically (a copy of the last argument). Returns the
  // load-time refusal (InvalidType for an undeclared dtype, the declining or
  // failing prepare step's error) or the kernel's failure state. An argument count or kind
  // mismatch is a test failure: it means the test, not the kernel, is wrong.
  Error run(const char* name, std::vector<EValue*> args) {
    Error e = prepare(name, std::move(args));
    if (e != Error::Ok) return e;
    return run_prepared();
  }

  // The load half of run(): chooses and prepares the kernel for `name`.
  Error prepare(const char* name, std::vector<EValue*> args) {
    name_ = name;
    args_ = std::move(args);
    args_.push_back(args_.empty() ? none() : args_.back());
    chosen_ = nullptr;
    library_ = nullptr;
    state_ = nullptr;
    // The loader's own decision: the registry's select(), with the facts a
    // program gives (constant arguments; nothing written while it runs).
    CallFacts facts;
    facts.constant_args = constant_args_;
    const KernelSelection sel =
        registry_->select(name_, name_, args_.data(), args_.size(), facts, &method_alloc_, pool_);
    switch (sel.outcome) {
      case KernelSelection::Outcome::NotRegistered:
        ADD_FAILURE() << "no kernel registered as " << name;
        return Error::OperatorMissing;
      case KernelSelection::Outcome::Chosen:
        chosen_ = sel.entry;
        library_ = sel.library;
        state_ = sel.state;
        return Error::Ok;
      case KernelSelection::Outcome::Failed: return sel.error;
      case KernelSelection::Outcome::Declined: break;
    }
    // A count or kind mismatch is the test's mistake, so it fails the test.
    if (sel.mismatch.kind == CallMismatch::Kind::ArgCount) {
      ADD_FAILURE() << name_ << " expects " << sel.entry->num_args
                    << " args (with return slot), got " << args_.size();
    } else if (sel.mismatch.kind == CallMismatch::Kind::ArgKind) {
      ADD_FAILURE() << name_ << " arg " << sel.mismatch.arg << ": expected "
                    << to_string(sel.entry->arg_kinds[sel.mismatch.arg]) << ", got "
                    << to_string(args_[sel.mismatch.arg]->tag());
    }
    return sel.error;
  }

  // The execute half: runs the prepared kernel again (same args, same
  // state). Returns the kernel's failure state.
  Error run_prepared() {
    if (chosen_ == nullptr) {
      ADD_FAILURE() << "run_prepared() without a successful prepare()";
      return Error::InvalidState;
    }
    temp_bytes_.assign(temp_size_, 0);
    MemoryAllocator temp_alloc(temp_bytes_.data(), temp_bytes_.size());
    KernelContext ctx(&temp_alloc, pool_);
    ctx.bind_instruction(name_, state_);
    chosen_->fn(ctx, args_.data());
    return ctx.failure_state();
  }

  // Bytes of temp memory run_prepared() gives the kernel (default 1 MiB).
  void set_temp_bytes(size_t n) { temp_size_ = n; }

  // Marks arguments (bit i: argument i) as program constants for prepare
  // (KernelPrepareContext::is_constant_arg), as weights are in a program.
  void set_constant_args(uint64_t mask) { constant_args_ = mask; }

  // The library whose kernel the last successful prepare() chose.
  const char* chosen_library() const { return library_ == nullptr ? "" : library_->name; }
  // The state that kernel's prepare built (null when none).
  void* state() const { return state_; }

 private:
  EValue* add(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }
  std::deque<EValue> values_;
  std::deque<std::vector<EValue*>> int_items_;
  std::deque<std::vector<int64_t>> int_scratch_;
  std::deque<std::vector<double>> double_store_;

  const KernelRegistry* registry_;
  ThreadPool* pool_;
  std::vector<uint8_t> method_bytes_;  // lives as long as the runner, like a method's
  MemoryAllocator method_alloc_;
  std::vector<uint8_t> temp_bytes_;
  size_t temp_size_ = size_t{1} << 20;
  const char* name_ = "";
  std::vector<EValue*> args_;
  const KernelEntry* chosen_ = nullptr;
  const KernelLibrary* library_ = nullptr;
  void* state_ = nullptr;
  uint64_t constant_args_ = 0;
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
void expect_close(const std::vector<T>& actual, const std::vector<T>& expected, double rtol = 1e-5,
                  double atol = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    const double a = static_cast<double>(actual[k]);
    const double e = static_cast<double>(expected[k]);
    EXPECT_LE(std::abs(a - e), atol + rtol * std::abs(e)) << "at element " << k;
  }
}

}  // namespace testing
}  // namespace etr
