// Compatibility layer (extension/compat): the official ETDump helper
// align_pointer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace etdump {
namespace internal {

// `ptr` rounded up to a multiple of `alignment` (a power of two).
inline uint8_t* align_pointer(void* ptr, size_t alignment) {
  const uintptr_t mask = static_cast<uintptr_t>(alignment) - 1;
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(ptr) + mask) & ~mask);
}

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
