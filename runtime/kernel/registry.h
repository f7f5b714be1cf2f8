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
// kernel can decline a call it does not handle (its prepare returns
// NotSupported) and the portable one runs it. KernelRegistry::select() is
// that decision, the one copy the method loader, kernel fusion and the
// kernel tests share.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/span.h"
#include "runtime/core/thread_pool.h"
#include "runtime/kernel/fusion_rule.h"
#include "runtime/kernel/kernel.h"

#ifndef ETR_MAX_KERNEL_TABLES
#define ETR_MAX_KERNEL_TABLES 32
#endif

namespace etr {

// Conventional priorities; any int works.
constexpr int kPortablePriority = 0;
constexpr int kOptimizedPriority = 100;
constexpr int kCustomPriority = 200;

// A kernel library: a named table of kernels at one priority, and the fusion
// rules (fusion_rule.h) saying which chains of calls its fused kernels stand
// in for. Both must have static storage duration (the registry keeps views,
// not copies).
struct KernelLibrary {
  const char* name;
  int priority;
  Span<const KernelEntry> kernels;
  Span<const FusionRule> fusion_rules = {};
};

// One library's kernel for an operator.
struct KernelCandidate {
  const KernelEntry* entry;
  const KernelLibrary* library;
};

// What the method loader knows about a call before any kernel sees it.
struct CallFacts {
  // Bit a: argument a is a program constant (prepare may pack it).
  uint64_t constant_args = 0;
  // Bit a: argument a is a scalar the method writes while it runs (its
  // stored kind is the exporter's placeholder; any scalar kind fits).
  uint64_t run_time_scalar_args = 0;
  // Some argument (or list item), return slot excluded, is written while the
  // method runs: argument `run_time_arg_index`. A kernel whose prepare built
  // state cannot follow such an argument and declines; one whose prepare
  // built none is re-prepared before every call.
  bool run_time_arg = false;
  size_t run_time_arg_index = 0;
};

// The outcome of KernelRegistry::select().
struct KernelSelection {
  enum class Outcome : uint8_t {
    Chosen,         // entry/library/state/reprepare hold the choice
    NotRegistered,  // no library registers the operator
    Declined,       // every candidate declined; `reason` etc. describe the last one
    Failed,         // a prepare step failed for real (error); library names it
  };
  // Why the last candidate declined.
  enum class Decline : uint8_t {
    None,
    Mismatch,          // argument count, kind or dtype (see mismatch)
    Prepare,           // its prepare step returned NotSupported
    StateAtRunTimeArg  // its prepare built state but an argument changes at run time
  };
  Outcome outcome = Outcome::NotRegistered;
  // Chosen: the kernel and its library; otherwise the last candidate tried.
  const KernelEntry* entry = nullptr;
  const KernelLibrary* library = nullptr;
  void* state = nullptr;
  // Set when the chosen kernel must be prepared again before each call.
  PrepareFn reprepare = nullptr;
  // Declined: the last refusal's code; Failed: the prepare step's error.
  Error error = Error::Ok;
  Decline reason = Decline::None;
  CallMismatch mismatch;
  size_t num_candidates = 0;
  bool chosen() const { return outcome == Outcome::Chosen; }
};

class KernelRegistry final {
 public:
  static constexpr size_t kMaxLibraries = ETR_MAX_KERNEL_TABLES;

  constexpr KernelRegistry() : libs_{}, sorted_{}, num_libs_(0) {}

  // Adds a library, or nothing: fails with InvalidArgument for an incomplete
  // entry, a malformed fusion rule (fusion_rule_valid) or a missing name,
  // RegistrationAlreadyRegistered if an operator appears twice in the table or a library of that
  // name is already added, and RegistrationExceedingMaxKernels when all library slots are used.
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

  // The kernels registered as `name`, highest priority first, into out[0..cap);
  // returns how many (at most cap).
  size_t candidates(StringView name, uint32_t hash, KernelCandidate* out, size_t cap) const {
    size_t n = 0;
    for (size_t l = 0; l < num_libs_ && n < cap; ++l) {
      const KernelEntry* e = find_in(l, name, hash);
      if (e != nullptr) out[n++] = KernelCandidate{e, &libs_[l]};
    }
    return n;
  }

  // Chooses the kernel for a call of `op` with args[0..n) (return slot
  // included): the candidates in priority order, the first whose argument
  // count, kinds and dtypes fit and whose prepare step (run with a context
  // named `op_label`, on `method_allocator` and `pool`) returns Ok. A
  // mismatch, or a prepare returning NotSupported, declines (the next
  // library is tried); any other prepare error fails the selection at once.
  // With facts.run_time_arg, a kernel whose prepare built state declines and
  // one with a stateless prepare is chosen with `reprepare` set.
  KernelSelection select(const char* op, const char* op_label, EValue* const* args, size_t n,
                         const CallFacts& facts, MemoryAllocator* method_allocator,
                         ThreadPool* pool) const;
  // The same over candidates already looked up (candidates()).
  static KernelSelection select_from(const KernelCandidate* candidates, size_t num_candidates,
                                     const char* op_label, EValue* const* args, size_t n,
                                     const CallFacts& facts, MemoryAllocator* method_allocator,
                                     ThreadPool* pool);

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
