// The optimized kernel library: the concatenation of the family tables. Each
// family declares its kernels and its table in kernels/optimized/<family>.h;
// this file only joins them, at compile time (no static initializer runs).
#include <array>
#include <cstddef>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/convolution.h"
#include "kernels/optimized/elementwise.h"
#include "kernels/optimized/layout.h"
#include "kernels/optimized/linear_algebra.h"
#include "kernels/optimized/normalization.h"
#include "kernels/optimized/optimized_kernels.h"
#include "kernels/optimized/pooling.h"
#include "runtime/kernel/selective_build.h"

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
constexpr auto kAllOptimizedKernels = sorted_by_hash(concat(  //
    kOptLinearAlgebraKernels, kOptElementwiseKernels, kOptActivationKernels,
    kOptNormalizationKernels, kOptLayoutKernels, kOptConvolutionKernels, kOptPoolingKernels));

// All of them but in a selective build (runtime/kernel/selective_build.h).
constexpr auto kOptimizedKernels =
    select_kernels<count_selected(kAllOptimizedKernels)>(kAllOptimizedKernels);

}  // namespace

Span<const KernelEntry> optimized_kernels() {
  return {kOptimizedKernels.data(), kOptimizedKernels.size()};
}

KernelLibrary optimized_kernel_library() {
  return KernelLibrary{"optimized", kOptimizedPriority, optimized_kernels(),
                       optimized_fusion_rules()};
}

}  // namespace etr
