// Scratch slots for the chunks of one parallel_for. A ThreadPool runs at
// most num_threads() chunks at once but may cut the range into more chunks
// than that (PthreadPool: up to four per thread, claimed as threads come
// free, which evens out a late or descheduled thread), so per-thread scratch
// cannot be indexed by chunk: each chunk takes a free slot for its duration.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace etr {
namespace opt {

class ScratchSlots {
 public:
  static constexpr size_t kMaxSlots = 32;

  // `count` slots, clamped to [1, kMaxSlots].
  explicit ScratchSlots(size_t count)
      : count_(count < 1 ? 1 : (count > kMaxSlots ? kMaxSlots : count)) {}

  size_t count() const { return count_; }

  // A free slot. With a slot per thread one is always free; with fewer (temp
  // memory was short) a chunk waits here until another releases one. *fresh:
  // the slot's first use in this call (its memory not yet initialised).
  size_t acquire(bool* fresh) {
    for (;;) {
      for (size_t i = 0; i < count_; ++i) {
        const uint32_t bit = uint32_t{1} << i;
        if ((busy_.fetch_or(bit, std::memory_order_acquire) & bit) == 0) {
          *fresh = (used_.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
          return i;
        }
      }
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    }
  }

  void release(size_t slot) { busy_.fetch_and(~(uint32_t{1} << slot), std::memory_order_release); }

 private:
  size_t count_;
  std::atomic<uint32_t> busy_{0};
  std::atomic<uint32_t> used_{0};
};

}  // namespace opt
}  // namespace etr
