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
#include "kernels/portable/half_adapter.h"
#include "kernels/portable/indexing.h"
#include "kernels/portable/linear_algebra.h"
#include "kernels/portable/logical.h"
#include "kernels/portable/normalization.h"
#include "kernels/portable/pooling.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/portable/reduction.h"
#include "kernels/portable/resample.h"
#include "kernels/portable/shape.h"
#include "kernels/portable/unary.h"
#include "runtime/kernel/selective_build.h"

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

constexpr auto kAllPortableKernels = concat(
    kArithmeticKernels, kUnaryKernels, kActivationKernels, kComparisonKernels, kLogicalKernels,
    kReductionKernels, kNormalizationKernels, kLinearAlgebraKernels, kPoolingKernels, kShapeKernels,
    kIndexingKernels, kCopyKernels, kCreationKernels, kResampleKernels);

// The selected kernels (all but in a selective build; runtime/kernel/selective_build.h),
// sorted by name hash so the registry finds an operator by bisection.
constexpr auto kPortableKernels =
    sorted_by_hash(select_kernels<count_selected(kAllPortableKernels)>(kAllPortableKernels));

// The portable_half library: one widening entry per kernel that computes in
// float (see half_adapter.cpp), built from the table above at compile time.
template <size_t N>
constexpr size_t count_widening(const std::array<KernelEntry, N>& table) {
  size_t n = 0;
  for (const KernelEntry& e : table) n += internal::widens_to_float(e) ? 1 : 0;
  return n;
}

template <size_t M, size_t N>
constexpr std::array<KernelEntry, M> widening_table(const std::array<KernelEntry, N>& table) {
  std::array<KernelEntry, M> out{};
  size_t at = 0;
  for (const KernelEntry& e : table) {
    if (!internal::widens_to_float(e)) continue;
    KernelEntry w = e;
    w.fn = &internal::half_run;
    w.prepare = &internal::half_prepare;
    w.dtypes = e.dtypes | DtypeSet::of(ScalarType::Half, ScalarType::BFloat16);
    out[at++] = w;
  }
  return out;
}

constexpr auto kPortableHalfKernels =
    widening_table<count_widening(kPortableKernels)>(kPortableKernels);

}  // namespace

Span<const KernelEntry> portable_kernels() {
  return {kPortableKernels.data(), kPortableKernels.size()};
}

KernelLibrary portable_kernel_library() {
  return KernelLibrary{"portable", kPortablePriority, portable_kernels()};
}

KernelLibrary portable_half_kernel_library() {
  return KernelLibrary{"portable_half",
                       kPortablePriority - 1,
                       {kPortableHalfKernels.data(), kPortableHalfKernels.size()}};
}

}  // namespace etr
