// POSIX default hooks: stderr, CLOCK_MONOTONIC, abort(), posix_memalign.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#if defined(__linux__)
#include <sys/mman.h>
#endif

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

// Blocks of at least this many bytes start on a 2 MiB boundary and, on
// Linux, are advised to use transparent huge pages (where the system leaves
// that to madvise): packed weights and KV caches are read front to back on
// every decode step, and with 4 KiB pages that stream stalls on TLB misses
// and on the hardware prefetchers stopping at every page boundary.
// ETR_HUGE_PAGES=0 in the environment turns this off (plain posix_memalign):
// on a host whose memory is fragmented, the kernel's compaction for a huge
// page can stall the allocation that asked for it.
constexpr size_t kHugeBlockBytes = size_t{2} << 20;

bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("ETR_HUGE_PAGES");
    return v == nullptr || !(v[0] == '0' && v[1] == '\0');
  }();
  return wanted;
}

void* default_allocate(size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) {
    alignment = sizeof(void*);
  }
  const bool huge = size >= kHugeBlockBytes && huge_pages_wanted();
  if (huge && alignment < kHugeBlockBytes) alignment = kHugeBlockBytes;
  void* p = nullptr;
  if (posix_memalign(&p, alignment, size == 0 ? 1 : size) != 0) {
    return nullptr;
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: a kernel without THP refuses it and nothing changes.
  if (huge) (void)madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

void default_deallocate(void* ptr) { std::free(ptr); }

}  // namespace internal
}  // namespace etr
