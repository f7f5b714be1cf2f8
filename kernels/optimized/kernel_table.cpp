// The optimized kernel library: the concatenation of the family tables. Each
// family declares its kernels and its table in kernels/optimized/<family>.h;
// this file only joins them, at compile time (no static initializer runs).
#include <array>
#include <cstddef>

#include "kernels/optimized/optimized_kernels.h"

namespace etr {
namespace {

template <size_t... N>
constexpr std::array<KernelEntry, (N + ... + 0)> concat(const KernelEntry (&... tables)[N]) {
  std::array<KernelEntry, (N + ... + 0)> all{};
  size_t at = 0;
  auto append = [&](const KernelEntry* table, size_t n) {
    for (size_t i = 0; i < n; ++i) all[at++] = table[i];
  };
  (append(tables, N), ...);
  (void)append;
  return all;
}

// Sorted by name hash so the registry finds an operator by bisection.
constexpr auto kOptimizedKernels = sorted_by_hash(concat(
    // Family tables, one per line (each helper adds its own):
    ));

}  // namespace

Span<const KernelEntry> optimized_kernels() {
  return {kOptimizedKernels.data(), kOptimizedKernels.size()};
}

KernelLibrary optimized_kernel_library() {
  return KernelLibrary{"optimized", kOptimizedPriority, optimized_kernels()};
}

}  // namespace etr
