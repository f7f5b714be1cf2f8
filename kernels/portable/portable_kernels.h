// The portable (reference) kernel library.
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"

namespace etr {

// Every portable kernel; register with register_kernels(portable_kernels()).
Span<const KernelEntry> portable_kernels();

}  // namespace etr
