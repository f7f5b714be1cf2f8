// Kernel registry: a fixed-capacity list of kernel tables, filled by explicit
// calls at startup (never by static initializers).
//
//   etr::default_kernel_registry().add(etr::portable_kernels());
//
// Each add() registers one table; the table must have static storage
// duration (the registry keeps a view, not a copy).
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"

#ifndef ETR_MAX_KERNEL_TABLES
#define ETR_MAX_KERNEL_TABLES 32
#endif

namespace etr {

class KernelRegistry final {
 public:
  static constexpr size_t kMaxTables = ETR_MAX_KERNEL_TABLES;

  constexpr KernelRegistry() : tables_{}, num_tables_(0), has_keyed_(false) {}

  // Registers every entry of `table`, or none: fails with
  // RegistrationAlreadyRegistered if a (name, key) pair is already present
  // (or repeated inside the table) and RegistrationExceedingMaxKernels when
  // the table capacity is exhausted. Does not take ownership; `table` must
  // outlive the registry.
  [[nodiscard]] Error add(Span<const KernelEntry> table);

  // The kernel registered for `name` with exactly `key`, else the one
  // registered for `name` without a key, else nullptr.
  const KernelEntry* find(StringView name, StringView key) const;
  bool has(StringView name) const { return find(name, StringView()) != nullptr || find_any(name); }

  size_t num_kernels() const;
  // True when some registered kernel carries a dtype/dim-order key (callers
  // can skip building keys otherwise).
  bool has_keyed_kernels() const { return has_keyed_; }
  // Calls fn(entry) for every registered kernel, in registration order.
  template <typename F>
  void for_each(F&& fn) const {
    for (size_t t = 0; t < num_tables_; ++t) {
      for (const KernelEntry& e : tables_[t]) fn(e);
    }
  }

  // Removes every table (tests only).
  void clear() {
    num_tables_ = 0;
    has_keyed_ = false;
  }

 private:
  bool find_any(StringView name) const;
  Span<const KernelEntry> tables_[kMaxTables];
  size_t num_tables_;
  bool has_keyed_;
};

// The process-wide registry used when a method is loaded without an explicit one.
KernelRegistry& default_kernel_registry();

// Convenience: add to the default registry.
[[nodiscard]] inline Error register_kernels(Span<const KernelEntry> table) {
  return default_kernel_registry().add(table);
}

}  // namespace etr
