// Kernel registry: kernel libraries stacked in priority order, filled by
// explicit calls at startup (never by static initializers).
//
//   etr::KernelRegistry& r = etr::default_kernel_registry();
//   r.add(etr::portable_kernel_library());    // priority kPortablePriority
//   r.add(my_optimized_library());            // a higher priority wins
//
// Several libraries may register the same operator. For each instruction the
// method loader walks the libraries that have the operator, highest priority
// first (equal priorities: the earlier-added first), and takes the first
// kernel that accepts the call: its declared dtypes contain every tensor
// argument's dtype and its prepare step (if any) returns Ok. So an optimized
// kernel can decline a call it does not handle and the portable one runs it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"

#ifndef ETR_MAX_KERNEL_TABLES
#define ETR_MAX_KERNEL_TABLES 32
#endif

namespace etr {

// Conventional priorities; any int works.
constexpr int kPortablePriority = 0;
constexpr int kOptimizedPriority = 100;
constexpr int kCustomPriority = 200;

// A kernel library: a named table of kernels at one priority. The table must
// have static storage duration (the registry keeps a view, not a copy).
struct KernelLibrary {
  const char* name;
  int priority;
  Span<const KernelEntry> kernels;
};

class KernelRegistry final {
 public:
  static constexpr size_t kMaxLibraries = ETR_MAX_KERNEL_TABLES;

  constexpr KernelRegistry() : libs_{}, sorted_{}, num_libs_(0) {}

  // Adds a library, or nothing: fails with InvalidArgument for an incomplete
  // entry or a missing name, RegistrationAlreadyRegistered if an operator
  // appears twice in the table or a library of that name is already added,
  // and RegistrationExceedingMaxKernels when all library slots are used.
  // Does not take ownership; the name and table must outlive the registry.
  [[nodiscard]] Error add(const KernelLibrary& library);

  // Calls fn(entry, library) for each kernel registered as `name`, highest
  // priority first, until fn returns true. `hash` is op_name_hash(name).
  // A library whose table is sorted by name_hash (sorted_by_hash() in
  // kernel.h) is searched by bisection; any other table linearly.
  template <typename F>
  void for_each_candidate(StringView name, uint32_t hash, F&& fn) const {
    for (size_t l = 0; l < num_libs_; ++l) {
      const KernelEntry* e = find_in(l, name, hash);
      if (e != nullptr && fn(*e, libs_[l])) return;
    }
  }

  // The highest-priority kernel registered as `name`, or nullptr.
  const KernelEntry* find(StringView name) const;
  bool has(StringView name) const { return find(name) != nullptr; }

  size_t num_kernels() const;
  size_t num_libraries() const { return num_libs_; }
  // Library i in priority order (i < num_libraries()).
  const KernelLibrary& library(size_t i) const { return libs_[i]; }

  // Calls fn(entry, library) for every registered kernel, in priority order.
  template <typename F>
  void for_each(F&& fn) const {
    for (size_t l = 0; l < num_libs_; ++l) {
      for (const KernelEntry& e : libs_[l].kernels) fn(e, libs_[l]);
    }
  }

  // Removes every library (tests only).
  void clear() { num_libs_ = 0; }

 private:
  // The entry named `name` in library l, or nullptr.
  const KernelEntry* find_in(size_t l, StringView name, uint32_t hash) const {
    const Span<const KernelEntry> t = libs_[l].kernels;
    size_t lo = 0;
    size_t hi = t.size();
    if (sorted_[l]) {
      while (lo < hi) {  // first entry with name_hash >= hash
        const size_t mid = lo + (hi - lo) / 2;
        if (t[mid].name_hash < hash) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      hi = t.size();
    }
    for (size_t i = lo; i < hi; ++i) {
      if (t[i].name_hash == hash && StringView(t[i].name) == name) return &t[i];
      if (sorted_[l] && t[i].name_hash != hash) break;
    }
    return nullptr;
  }

  KernelLibrary libs_[kMaxLibraries];
  bool sorted_[kMaxLibraries];
  size_t num_libs_;
};

// The process-wide registry used when a method is loaded without an explicit one.
KernelRegistry& default_kernel_registry();

// Convenience: add to the default registry.
[[nodiscard]] inline Error register_kernels(const KernelLibrary& library) {
  return default_kernel_registry().add(library);
}

}  // namespace etr
