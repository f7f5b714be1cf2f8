// The optimized kernel library: vectorized and threaded kernels for the
// operators that dominate real models, registered above the portable library
// (kOptimizedPriority). Each kernel's prepare step accepts only the calls it
// is fast for (dtype, layout, shape class) and returns NotSupported for the
// rest, so the method loader falls back to the portable kernel for them.
//
//   registry.add(portable_kernel_library());
//   registry.add(optimized_kernel_library());   // order of add() does not matter
//
// Kernels take their threads from KernelContext::thread_pool() and their
// scratch from the temp allocator; packing and blocking choices are made in
// prepare and kept as per-instruction state, so run() only computes.
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {

Span<const KernelEntry> optimized_kernels();
// The chains of calls the library's fused kernels stand in for (fusion_rules.cpp).
Span<const FusionRule> optimized_fusion_rules();
KernelLibrary optimized_kernel_library();

}  // namespace etr
