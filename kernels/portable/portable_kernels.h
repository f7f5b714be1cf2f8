// The portable (reference) kernel library.
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {

// Every portable kernel.
Span<const KernelEntry> portable_kernels();
// The same table as the library "portable" at kPortablePriority; register
// with register_kernels(portable_kernel_library()).
KernelLibrary portable_kernel_library();
// Half and BFloat16 for the portable kernels that compute in float: each call
// is widened to float, run by the portable kernel and rounded back, as PyTorch
// computes these dtypes on CPU. Priority kPortablePriority - 1; register it
// next to portable_kernel_library().
KernelLibrary portable_half_kernel_library();

}  // namespace etr
