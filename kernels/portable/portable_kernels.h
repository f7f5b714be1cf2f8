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

}  // namespace etr
