// Compatibility layer (extension/compat): runtime_abort(), what a failed
// ET_CHECK calls (it ends in pal_abort()).
#pragma once

#include <executorch/runtime/platform/compiler.h>

namespace executorch {
namespace runtime {
ET_NORETURN void runtime_abort();
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::runtime_abort;
}  // namespace executor
}  // namespace torch
