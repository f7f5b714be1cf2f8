// Platform hooks: the only place the runtime touches the operating system.
//
// Every hook has a POSIX default. An embedder replaces any subset with
// set_platform_hooks() before loading a program (e.g. to route logs to a UART,
// read a cycle counter, or forbid the heap entirely by installing an allocate
// hook that returns nullptr).
#pragma once

#include <cstddef>
#include <cstdint>

namespace etr {

enum class LogLevel : uint8_t { Debug = 0, Info = 1, Error = 2 };

struct PlatformHooks {
  // Receives one formatted message (no trailing newline). `file` may be null.
  void (*log)(LogLevel level, const char* file, int line, const char* message);
  // Monotonic clock in nanoseconds.
  uint64_t (*now_ns)();
  // Called by platform_abort() (an embedder's own fatal errors); the runtime
  // itself never calls it, since every failure is returned as an Error. Must not return.
  void (*abort)(const char* reason);
  // Heap used outside the loading and running of a method: data loaders (e.g.
  // the file data loader), the opt-in measuring load behind
  // MethodMeta::method_allocator_bytes() and its PlatformArena, MethodMemory.
  // Program::load_method and Method::execute never call these (they take
  // memory from the caller's allocators). `alignment` is a power of two.
  // The POSIX default starts blocks of 2 MiB or more on a 2 MiB boundary and,
  // on Linux, advises transparent huge pages for them (madvise).
  void* (*allocate)(size_t size, size_t alignment);
  void (*deallocate)(void* ptr);
};

// Installs hooks; null members keep the current hook. Not thread-safe: call at startup.
void set_platform_hooks(const PlatformHooks& hooks);
const PlatformHooks& platform_hooks();

// Convenience wrappers around the installed hooks.
uint64_t platform_now_ns();
void* platform_allocate(size_t size, size_t alignment);
void platform_deallocate(void* ptr);
[[noreturn]] void platform_abort(const char* reason);

}  // namespace etr
