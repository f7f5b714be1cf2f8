// Compatibility layer (extension/compat): runtime_init(). etr needs no
// process-wide initialization (Module registers its kernels on first use),
// so this does nothing.
#pragma once

namespace executorch {
namespace runtime {
inline void runtime_init() {}
}  // namespace runtime
}  // namespace executorch
