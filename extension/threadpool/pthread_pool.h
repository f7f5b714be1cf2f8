// PthreadPool: the runtime's ThreadPool on Debian's libpthreadpool.
//
//   auto pool = etr::PthreadPool::create();        // one thread per physical core
//   options.thread_pool = pool.get();              // MethodLoadOptions
//
// Sharing: one pool may serve several Methods, also Methods executing at the
// same time on different threads; libpthreadpool lets one parallelize call
// run at a time per pool and makes the others wait, so concurrent callers are
// correct but not concurrent with each other (give each a pool to overlap them).
// set_num_threads() must not run while another thread calls parallel_for on
// the same pool. Desktop extension: uses the heap, never throws.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/thread_pool.h"

struct pthreadpool;

namespace etr {

class PthreadPool final : public ThreadPool {
 public:
  // num_threads 0: one per physical core (logical CPUs when that is unknown).
  static std::unique_ptr<PthreadPool> create(size_t num_threads = 0);
  ~PthreadPool() override;

  size_t num_threads() const override;
  void parallel_for(size_t n, size_t grain, RangeFn fn) override;

  // Replaces the worker threads with `n` (0: the default count). The
  // previous pthreadpool is retired, not destroyed, until this pool is
  // destroyed: a library holding native_handle() from before (an XNNPACK
  // runtime) keeps a valid pool and picks up the new one when it next
  // compares handles.
  [[nodiscard]] Error set_num_threads(size_t n);

  // Does not take ownership of anything; the caller owns the pool.
  pthreadpool* native() const { return pool_; }
  void* native_handle() const override { return pool_; }

 private:
  explicit PthreadPool(pthreadpool* pool) : pool_(pool) {}
  pthreadpool* pool_;
  std::vector<pthreadpool*> retired_;
};

// Physical cores of this machine (>= 1).
size_t default_thread_count();

}  // namespace etr
