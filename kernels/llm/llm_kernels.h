// The LLM kernel library: the `llama::` custom operators an ExecuTorch LLM
// export calls (update_cache, update_cache_with_indices, custom_sdpa,
// sdpa_with_kv_cache, custom_quantized_sdpa, fast_hadamard_transform; see
// kernels/llm/llm.h).
#pragma once

#include "runtime/core/span.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {

// Every LLM kernel.
Span<const KernelEntry> llm_kernels();
// The same table as the library "llm" at kPortablePriority; register with
// register_kernels(llm_kernel_library()).
KernelLibrary llm_kernel_library();

}  // namespace etr
