// The quantized kernel library (table in kernels/quantized/quantized.h).
#include "kernels/quantized/quantized.h"
#include "kernels/quantized/quantized_kernels.h"

namespace etr {

Span<const KernelEntry> quantized_kernels() {
  return {kQuantizedKernels, sizeof(kQuantizedKernels) / sizeof(kQuantizedKernels[0])};
}

KernelLibrary quantized_kernel_library() {
  return KernelLibrary{"quantized", kPortablePriority, quantized_kernels()};
}

}  // namespace etr
