// Compatibility layer (extension/compat): allocation size helpers.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>

#include <cstddef>

namespace executorch {
namespace extension {
namespace utils {

// `size` rounded up so that an allocation of it can be aligned to
// `alignment` (a power of two) by moving its start: size + alignment - 1.
// InvalidArgument on overflow.
inline runtime::Result<size_t> get_aligned_size(size_t size, size_t alignment) {
  size_t adjusted = 0;
  if (alignment == 0 || __builtin_add_overflow(size, alignment - 1, &adjusted)) {
    ET_LOG(Error, "Aligned size of %zu bytes (alignment %zu) overflows", size, alignment);
    return runtime::Error::InvalidArgument;
  }
  return adjusted;
}

}  // namespace utils
}  // namespace extension
}  // namespace executorch
