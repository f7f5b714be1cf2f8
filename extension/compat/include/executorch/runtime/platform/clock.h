// Compatibility layer (extension/compat): platform ticks to nanoseconds.
#pragma once

#include <executorch/runtime/platform/platform.h>

namespace executorch {
namespace runtime {
inline uint64_t ticks_to_ns(et_timestamp_t ticks) {
  const et_tick_ratio_t ratio = pal_ticks_to_ns_multiplier();
  return static_cast<uint64_t>(ticks) * ratio.numerator / ratio.denominator;
}
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::ticks_to_ns;
}  // namespace executor
}  // namespace torch
