// The quantized kernel library: the 19 `quantized_decomposed::` out-variant
// kernels a PT2E-quantized program exported without delegation calls
// (quantize/dequantize per tensor, channel and token, choose_qparams,
// quantized embeddings, mixed-dtype matmuls, quantized add).
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {

// Every quantized kernel.
Span<const KernelEntry> quantized_kernels();
// The same table as the library "quantized" at kPortablePriority; register
// with register_kernels(quantized_kernel_library()).
KernelLibrary quantized_kernel_library();

}  // namespace etr
