// Compatibility layer (extension/compat): runtime_init(). Runs pal_init();
// etr needs no other process-wide initialization (kernels and backends are
// registered on the first Program or Module load).
#pragma once

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
void runtime_init();
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::runtime_init;
}  // namespace executor
}  // namespace torch
