#include "extension/threadpool/pthread_pool.h"

#include <cpuinfo.h>
#include <pthreadpool.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "extension/threadpool/pthreadpool_shim.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace etr {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kChunksPerThread = 4;
constexpr uint64_t kCountMask = 0xffff;

// One step of a spin-wait loop: tells the core this thread is waiting.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

inline uint32_t next_of(uint64_t s) { return static_cast<uint32_t>(s & kCountMask); }
inline uint32_t total_of(uint64_t s) { return static_cast<uint32_t>((s >> 16) & kCountMask); }

}  // namespace

size_t default_thread_count() {
  if (cpuinfo_initialize()) {
    const uint32_t cores = cpuinfo_get_cores_count();
    if (cores > 0) return cores;
  }
  const unsigned logical = std::thread::hardware_concurrency();
  return logical == 0 ? 1 : logical;
}

std::unique_ptr<PthreadPool> PthreadPool::create(size_t num_threads) {
  std::unique_ptr<PthreadPool> pool(
      new PthreadPool(num_threads == 0 ? default_thread_count() : num_threads));
  if (!pool->start_workers()) return nullptr;
  return pool;
}

PthreadPool::~PthreadPool() {
  stop_workers();
  if (native_ != nullptr) {
    if (native_is_shim_) {
      pool_shim::destroy_handle(native_);
    } else {
      pthreadpool_destroy(native_);
    }
  }
  for (pthreadpool* p : retired_) pthreadpool_destroy(p);
  for (pthreadpool* p : retired_shims_) pool_shim::destroy_handle(p);
}

bool PthreadPool::start_workers() {
  stop_.store(false);
  // The calling thread is one of num_threads_.
  for (size_t i = 1; i < num_threads_; ++i) {
    std::thread t(&PthreadPool::worker_main, this);
    workers_.push_back(std::move(t));
  }
  return true;
}

void PthreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

bool PthreadPool::run_chunks() {
  bool ran = false;
  uint64_t s = state_.load(std::memory_order_acquire);
  while (next_of(s) < total_of(s)) {
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      continue;  // s now holds the current value
    }
    // Chunk next_of(s) of the call that s belongs to: its fields stay put
    // until this chunk is counted in done_.
    const size_t begin = static_cast<size_t>(next_of(s)) * chunk_;
    const size_t end = std::min(n_, begin + chunk_);
    (*fn_)(begin, end);
    // Sequentially consistent, like the caller's raising of caller_waiting_:
    // the chunk that finishes the call either is seen by the caller's check
    // before it blocks, or sees the caller waiting and wakes it.
    if (done_.fetch_add(1) + 1 == total_of(s) && caller_waiting_.load()) {
      { std::lock_guard<std::mutex> lock(done_mutex_); }
      done_cv_.notify_one();
    }
    ran = true;
    s = state_.load(std::memory_order_acquire);
  }
  return ran;
}

void PthreadPool::worker_main() {
  const auto spin = std::chrono::microseconds(kSpinMicros);
  Clock::time_point idle_since = Clock::now();
  uint32_t polls = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    if (run_chunks()) {
      idle_since = Clock::now();
      continue;
    }
    cpu_relax();
    if (++polls % 64 != 0 || Clock::now() - idle_since < spin) continue;
    // Idle for kSpinMicros: sleep until a call publishes chunks. sleepers_
    // is raised before the last look at state_, and parallel_for reads it
    // after publishing (both sequentially consistent), so a call either is
    // seen here or sees this sleeper and notifies under the mutex.
    std::unique_lock<std::mutex> lock(sleep_mutex_);
    sleepers_.fetch_add(1);
    wake_.wait(lock, [&] {
      const uint64_t s = state_.load();
      return stop_.load() || next_of(s) < total_of(s);
    });
    sleepers_.fetch_sub(1);
    idle_since = Clock::now();
  }
}

void PthreadPool::parallel_for(size_t n, size_t grain, RangeFn fn) {
  if (n == 0) return;
  if (grain == 0) grain = 1;
  const size_t threads = workers_.size() + 1;
  // Chunks of at least the grain, at most kChunksPerThread per thread.
  const size_t per = threads * kChunksPerThread;
  const size_t chunk = std::max(grain, (n + per - 1) / per);
  const size_t total = (n + chunk - 1) / chunk;
  std::unique_lock<std::mutex> call(call_mutex_, std::try_to_lock);
  if (total <= 1 || workers_.empty() || !call.owns_lock()) {
    // One chunk, no workers, or the workers serve another thread's call.
    fn(0, n);
    return;
  }
  fn_ = &fn;
  n_ = n;
  chunk_ = chunk;
  done_.store(0, std::memory_order_relaxed);
  ++generation_;
  state_.store((static_cast<uint64_t>(generation_) << 32) | (static_cast<uint64_t>(total) << 16));
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(sleep_mutex_); }
    wake_.notify_all();
  }
  run_chunks();
  // Every chunk is claimed; wait for the ones workers are still running:
  // spin for about kSpinMicros, then sleep until the last chunk's worker
  // wakes this thread (a worker descheduled mid-chunk, on a machine with more
  // busy threads than cores, may take a whole time slice; yielding in a loop
  // would burn this core's time meanwhile).
  const Clock::time_point start = Clock::now();
  uint32_t polls = 0;
  while (done_.load(std::memory_order_acquire) < total) {
    if (++polls < 64 || Clock::now() - start < std::chrono::microseconds(kSpinMicros)) {
      cpu_relax();
      continue;
    }
    std::unique_lock<std::mutex> lock(done_mutex_);
    caller_waiting_.store(true);
    done_cv_.wait(lock, [&] { return done_.load() >= total; });
    caller_waiting_.store(false);
    break;
  }
}

Error PthreadPool::set_num_threads(size_t n) {
  const size_t count = n == 0 ? default_thread_count() : n;
  stop_workers();
  num_threads_ = count;
  start_workers();
  std::lock_guard<std::mutex> lock(native_mutex_);
  if (native_ != nullptr) {
    // A new object, so that a library comparing handles sees the change.
    pthreadpool* p = native_is_shim_ ? pool_shim::make_handle(const_cast<PthreadPool*>(this))
                                     : pthreadpool_create(count);
    if (p == nullptr) ETR_FAIL(Error::OutOfResources, "thread pool: cannot start %zu threads", n);
    (native_is_shim_ ? retired_shims_ : retired_).push_back(native_);
    native_ = p;
  }
  return Error::Ok;
}

pthreadpool* PthreadPool::native() const {
  std::lock_guard<std::mutex> lock(native_mutex_);
  if (native_ == nullptr) {
    const char* env = std::getenv("ETR_LIBPTHREADPOOL");
    const bool want_lib = env != nullptr && std::strcmp(env, "1") == 0;
    if (!want_lib && pool_shim::active()) {
      native_ = pool_shim::make_handle(const_cast<PthreadPool*>(this));
      native_is_shim_ = native_ != nullptr;
    }
    if (native_ == nullptr) native_ = pthreadpool_create(num_threads_);
  }
  return native_;
}

}  // namespace etr
