// ThreadPool: the one parallel-for interface that kernels and delegates use.
//
// The runtime defines only the interface; an implementation lives in
// extension/threadpool (on Debian's libpthreadpool). A method gets its pool
// from MethodLoadOptions; kernels reach it through KernelContext and
// delegates through their init/execute contexts. A null pool means "run on
// the calling thread".
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace etr {

// A non-owning reference to a callable `void(size_t begin, size_t end)`.
// It must not outlive the callable it refers to.
class RangeFn final {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same<std::decay_t<F>, RangeFn>::value>>
  RangeFn(F&& f)  // NOLINT: implicit by design, like std::function_ref
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, size_t b, size_t e) {
          (*static_cast<std::remove_reference_t<F>*>(o))(b, e);
        }) {}

  void operator()(size_t begin, size_t end) const { call_(object_, begin, end); }

 private:
  void* object_;
  void (*call_)(void*, size_t, size_t);
};

class ThreadPool {
 public:
  virtual ~ThreadPool() = default;

  // Threads that take part in parallel_for, the calling thread included (>= 1).
  virtual size_t num_threads() const = 0;

  // Splits [0, n) into contiguous chunks of at least `grain` indices (the last
  // may be shorter) and calls fn(begin, end) once per chunk, possibly on
  // several threads at once; returns when every chunk is done. fn must not
  // call parallel_for on the same pool. Chunks never overlap and together
  // cover [0, n) exactly.
  virtual void parallel_for(size_t n, size_t grain, RangeFn fn) = 0;
  // The implementation's own pool object for libraries that take one
  // directly (a pthreadpool_t for extension/threadpool, which XNNPACK
  // uses), or null. It may change when the thread count changes; a
  // previous handle stays valid as long as the ThreadPool lives.
  virtual void* native_handle() const { return nullptr; }
};

// parallel_for on `pool`, or on the calling thread when pool is null, has one
// thread, or n fits in one grain.
inline void parallel_for(ThreadPool* pool, size_t n, size_t grain, RangeFn fn) {
  if (n == 0) return;
  if (grain == 0) grain = 1;
  if (pool == nullptr || pool->num_threads() <= 1 || n <= grain) {
    fn(0, n);
    return;
  }
  pool->parallel_for(n, grain, fn);
}

}  // namespace etr
