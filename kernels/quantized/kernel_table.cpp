// The quantized kernel library (table in kernels/quantized/quantized.h).
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/quantized_kernels.h"
#include "runtime/kernel/selective_build.h"

namespace etr {
namespace {

// All of them but in a selective build (runtime/kernel/selective_build.h),
// sorted by name hash so that the registry bisects instead of scanning.
constexpr auto kSelectedQuantizedKernels =
    sorted_by_hash(select_kernels<count_selected(kQuantizedKernels)>(kQuantizedKernels));

}  // namespace

Span<const KernelEntry> quantized_kernels() {
  return {kSelectedQuantizedKernels.data(), kSelectedQuantizedKernels.size()};
}

KernelLibrary quantized_kernel_library() {
  return KernelLibrary{"quantized", kPortablePriority, quantized_kernels()};
}

}  // namespace etr
