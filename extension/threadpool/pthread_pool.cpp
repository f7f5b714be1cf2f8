#include "extension/threadpool/pthread_pool.h"

#include <cpuinfo.h>
#include <pthreadpool.h>

#include <thread>

// libpthreadpool is not built with ThreadSanitizer, so TSan cannot see that
// the pool orders a task after the call that starts it and before the call's
// return. These annotations state exactly that happens-before edge (and
// nothing more), so real races in tasks are still reported.
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define ETR_TSAN_ACQUIRE(p) __tsan_acquire(p)
#define ETR_TSAN_RELEASE(p) __tsan_release(p)
#else
#define ETR_TSAN_ACQUIRE(p) ((void)(p))
#define ETR_TSAN_RELEASE(p) ((void)(p))
#endif

namespace etr {
namespace {

struct Job {
  RangeFn* fn;
  size_t n;
};

// pthreadpool hands each task the start of a tile and its length.
void run_tile(void* context, size_t start, size_t count) {
  Job* job = static_cast<Job*>(context);
  ETR_TSAN_ACQUIRE(job);
  (*job->fn)(start, start + count);
  ETR_TSAN_RELEASE(job);
}

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
  pthreadpool* p = pthreadpool_create(num_threads == 0 ? default_thread_count() : num_threads);
  if (p == nullptr) return nullptr;
  return std::unique_ptr<PthreadPool>(new PthreadPool(p));
}

PthreadPool::~PthreadPool() {
  pthreadpool_destroy(pool_);
  for (pthreadpool* p : retired_) pthreadpool_destroy(p);
}

size_t PthreadPool::num_threads() const { return pthreadpool_get_threads_count(pool_); }

void PthreadPool::parallel_for(size_t n, size_t grain, RangeFn fn) {
  if (n == 0) return;
  Job job{&fn, n};
  ETR_TSAN_RELEASE(&job);
  pthreadpool_parallelize_1d_tile_1d(pool_, &run_tile, &job, n, grain == 0 ? 1 : grain, 0);
  ETR_TSAN_ACQUIRE(&job);
}

Error PthreadPool::set_num_threads(size_t n) {
  pthreadpool* p = pthreadpool_create(n == 0 ? default_thread_count() : n);
  if (p == nullptr) ETR_FAIL(Error::OutOfResources, "thread pool: cannot start %zu threads", n);
  retired_.push_back(pool_);
  pool_ = p;
  return Error::Ok;
}

}  // namespace etr
