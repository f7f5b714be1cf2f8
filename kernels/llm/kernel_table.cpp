// The LLM kernel library (table in kernels/llm/llm.h).
#include "kernels/llm/llm.h"
#include "kernels/llm/llm_kernels.h"
#include "runtime/kernel/selective_build.h"

namespace etr {
namespace {

// All of them but in a selective build (runtime/kernel/selective_build.h),
// sorted by name hash so that the registry bisects instead of scanning.
constexpr auto kSelectedLlmKernels =
    sorted_by_hash(select_kernels<count_selected(kLlmKernels)>(kLlmKernels));

}  // namespace

Span<const KernelEntry> llm_kernels() {
  return {kSelectedLlmKernels.data(), kSelectedLlmKernels.size()};
}

KernelLibrary llm_kernel_library() {
  return KernelLibrary{"llm", kPortablePriority, llm_kernels()};
}

}  // namespace etr
