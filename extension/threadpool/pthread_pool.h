// PthreadPool: the runtime's ThreadPool. parallel_for runs on worker threads
// of its own; libraries that take a pool object (XNNPACK) get one through
// native_handle(), made on first use: a handle onto this pool's own
// parallel_for (pthreadpool_shim.h) where the process allows it, else a
// Debian libpthreadpool.
//
//   auto pool = etr::PthreadPool::create();        // one thread per physical core
//   options.thread_pool = pool.get();              // MethodLoadOptions
//
// parallel_for cuts [0, n) into at most four chunks per thread (never
// smaller than the grain); the caller and the workers claim chunks one at a
// time from a shared counter, so the caller never waits for a worker that
// has not started: when the workers are asleep or the OS has not scheduled
// them (a machine with more busy threads than cores), the caller runs every
// chunk itself and only waits for chunks a worker has already taken (it
// spins for about kSpinMicros, then sleeps until the last one ends). Idle
// workers spin for about kSpinMicros, then sleep until the next call.
//
// Sharing: one pool may serve several Methods, also Methods executing at the
// same time on different threads; one parallel_for uses the workers at a
// time, and a call that finds them busy with another thread's call runs on
// its own thread. set_num_threads() must not run while another thread calls
// parallel_for on the same pool. Desktop extension: uses the heap, never
// throws.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/thread_pool.h"

struct pthreadpool;

namespace etr {

class PthreadPool final : public ThreadPool {
 public:
  // How long an idle worker spins before it sleeps.
  static constexpr int64_t kSpinMicros = 100;

  // num_threads 0: one per physical core (logical CPUs when that is unknown).
  static std::unique_ptr<PthreadPool> create(size_t num_threads = 0);
  ~PthreadPool() override;

  size_t num_threads() const override { return num_threads_; }
  void parallel_for(size_t n, size_t grain, RangeFn fn) override;

  // Replaces the worker threads with `n` (0: the default count). A
  // pthreadpool handed out before is retired, not destroyed, until this pool
  // is destroyed: a library holding native_handle() from before (an XNNPACK
  // runtime) keeps a valid pool and picks up the new one when it next
  // compares handles.
  [[nodiscard]] Error set_num_threads(size_t n);

  // The pool object for XNNPACK, made on the first call (null when it
  // cannot be made): where this process binds the pthreadpool_parallelize_*
  // functions to pthreadpool_shim.cpp (pool_shim::active()), a handle that
  // runs them on this pool's parallel_for; otherwise, or with the
  // environment variable ETR_LIBPTHREADPOOL=1, a libpthreadpool with
  // num_threads() threads of its own. This pool owns it.
  pthreadpool* native() const;
  void* native_handle() const override { return native(); }

 private:
  explicit PthreadPool(size_t num_threads) : num_threads_(num_threads) {}
  bool start_workers();
  void stop_workers();
  void worker_main();
  // Claims and runs chunks of the current call until none is left; true when
  // it ran at least one.
  bool run_chunks();

  size_t num_threads_;
  std::vector<std::thread> workers_;
  // The current call: generation (bits 32..63), chunk count (16..31), next
  // unclaimed chunk (0..15). A claim is a compare-exchange on this word, so a
  // worker that wakes late cannot take a chunk of a later call by mistake.
  std::atomic<uint64_t> state_{0};
  std::atomic<uint32_t> done_{0};  // chunks of the current call finished
  // The current call's work; written before state_ publishes it and read
  // only by a thread that has claimed one of its chunks.
  RangeFn* fn_ = nullptr;
  size_t n_ = 0;
  size_t chunk_ = 0;
  uint32_t generation_ = 0;
  std::mutex call_mutex_;  // one parallel_for on the workers at a time
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  // The caller of the current call, done spinning, sleeps on done_cv_ until
  // the worker that finishes the last chunk wakes it.
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
  std::atomic<bool> caller_waiting_{false};
  std::atomic<bool> stop_{false};

  mutable std::mutex native_mutex_;
  mutable pthreadpool* native_ = nullptr;
  mutable bool native_is_shim_ = false;  // native_ is a pool_shim handle
  mutable std::vector<pthreadpool*> retired_;
  mutable std::vector<pthreadpool*> retired_shims_;
};

// Physical cores of this machine (>= 1).
size_t default_thread_count();

}  // namespace etr
