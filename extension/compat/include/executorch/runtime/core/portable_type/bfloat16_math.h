// Compatibility layer (extension/compat): the official header for math on
// BFloat16 and Half. etr's Half and BFloat16 convert to float implicitly, so
// the <cmath> functions (std::exp, std::sqrt, ...) apply to them directly
// and compute in float; this header only gathers the two types.
#pragma once

#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/half.h>

#include <cmath>
