// Internal to the file and mmap loaders: read exactly `size` bytes at
// `offset` of an open file, retrying short reads and EINTR.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace etr {
namespace internal {

// AccessFailed (logged as "<who>: read of N bytes at offset M failed") when
// the file ends early or the read fails.
[[nodiscard]] Error pread_exact(int fd, size_t offset, size_t size, void* dst, const char* who);

}  // namespace internal
}  // namespace etr
