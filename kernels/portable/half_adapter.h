// Internal: the two functions behind every entry of the portable_half
// library (see half_adapter.cpp), and the rule for which portable kernels
// get one.
#pragma once

#include "runtime/kernel/kernel.h"

namespace etr {
namespace internal {

Error half_prepare(KernelPrepareContext& ctx, EValue* const* args);
void half_run(KernelContext& ctx, EValue* const* args);

// Kernels that take Float but not Half compute in float and get a widening
// entry; kernels that take Half already move bytes only and need none.
constexpr bool widens_to_float(const KernelEntry& e) {
  return e.dtypes.contains(ScalarType::Float) && !e.dtypes.contains(ScalarType::Half);
}

}  // namespace internal
}  // namespace etr
