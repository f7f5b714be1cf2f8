// The build's default platform hooks (internal). Exactly one implementation is
// compiled in, chosen by the CMake option ETR_PLATFORM: default_posix.cpp
// (files, stderr, clock_gettime, posix_memalign) or default_bare_metal.cpp (no OS).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/platform/platform.h"

namespace etr {
namespace internal {
void default_log(LogLevel level, const char* file, int line, const char* message);
uint64_t default_now_ns();
[[noreturn]] void default_abort(const char* reason);
void* default_allocate(size_t size, size_t alignment);
void default_deallocate(void* ptr);
}  // namespace internal
}  // namespace etr
