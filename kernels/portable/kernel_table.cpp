// The portable kernel library: the concatenation of the family tables. Each
// op family declares its kernels and its table in kernels/portable/<family>.h;
// this file only joins them, at compile time (no static initializer runs).
#include <array>
#include <cstddef>

#include "kernels/portable/activation.h"
#include "kernels/portable/arithmetic.h"
#include "kernels/portable/comparison.h"
#include "kernels/portable/copy.h"
#include "kernels/portable/creation.h"
#include "kernels/portable/indexing.h"
#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/logical.h"
#include "kernels/portable/normalization.h"
#include "kernels/portable/pooling.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/portable/reduction.h"
#include "kernels/portable/shape.h"
#include "kernels/portable/unary.h"

namespace etr {
namespace {

// The entries of every table, in order, as one array.
template <size_t... N>
constexpr std::array<KernelEntry, (N + ...)> concat(const KernelEntry (&... tables)[N]) {
  std::array<KernelEntry, (N + ...)> all{};
  size_t at = 0;
  auto append = [&](const KernelEntry* table, size_t n) {
    for (size_t i = 0; i < n; ++i) all[at++] = table[i];
  };
  (append(tables, N), ...);
  return all;
}

constexpr auto kPortableKernels =
    concat(kArithmeticKernels, kUnaryKernels, kActivationKernels, kComparisonKernels,
           kLogicalKernels, kReductionKernels, kNormalizationKernels, kLinearAlgebraKernels,
           kPoolingKernels, kShapeKernels, kIndexingKernels, kCopyKernels, kCreationKernels);

}  // namespace

Span<const KernelEntry> portable_kernels() {
  return {kPortableKernels.data(), kPortableKernels.size()};
}

KernelLibrary portable_kernel_library() {
  return KernelLibrary{"portable", kPortablePriority, portable_kernels()};
}

}  // namespace etr
