// POSIX default hooks: stderr, CLOCK_MONOTONIC, abort(), posix_memalign.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "runtime/platform/default_hooks.h"

namespace etr {
namespace internal {

void default_log(LogLevel level, const char* file, int line, const char* message) {
  static const char kLevels[] = {'D', 'I', 'E'};
  const char tag = kLevels[static_cast<uint8_t>(level) % 3];
  if (file != nullptr) {
    std::fprintf(stderr, "%c %s:%d] %s\n", tag, file, line, message);
  } else {
    std::fprintf(stderr, "%c] %s\n", tag, message);
  }
}

uint64_t default_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void default_abort(const char* reason) {
  std::fprintf(stderr, "fatal: %s\n", reason != nullptr ? reason : "abort");
  std::abort();
}

void* default_allocate(size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) {
    alignment = sizeof(void*);
  }
  void* p = nullptr;
  if (posix_memalign(&p, alignment, size == 0 ? 1 : size) != 0) {
    return nullptr;
  }
  return p;
}

void default_deallocate(void* ptr) { std::free(ptr); }

}  // namespace internal
}  // namespace etr
