#include "extension/threadpool/pthreadpool_shim.h"

#include <dlfcn.h>
#include <pthreadpool.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>

#include "runtime/core/thread_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace etr {
namespace pool_shim {
namespace {

constexpr uint64_t kMagic = 0x65747273686d6c31ull;  // tells our handles from libpthreadpool's

struct Handle {
  uint64_t magic;
  ThreadPool* pool;
};

// The pool behind an etr handle, or null for a libpthreadpool one (its
// first word is a small thread counter, never kMagic).
ThreadPool* ours(pthreadpool_t tp) {
  const Handle* h = reinterpret_cast<const Handle*>(tp);
  return h != nullptr && h->magic == kMagic ? h->pool : nullptr;
}

// PTHREADPOOL_FLAG_DISABLE_DENORMALS: flush-to-zero and denormals-are-zero
// on the thread running a chunk, restored after it (what libpthreadpool
// does for the whole call on every thread).
class DenormalGuard {
 public:
  explicit DenormalGuard(uint32_t flags) {
#if defined(__x86_64__) || defined(__i386__)
    on_ = (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0;
    if (on_) {
      saved_ = _mm_getcsr();
      _mm_setcsr(saved_ | 0x8040u);  // FTZ (bit 15) and DAZ (bit 6)
    }
#else
    (void)flags;
#endif
  }
  ~DenormalGuard() {
#if defined(__x86_64__) || defined(__i386__)
    if (on_) _mm_setcsr(saved_);
#endif
  }
  DenormalGuard(const DenormalGuard&) = delete;
  DenormalGuard& operator=(const DenormalGuard&) = delete;

 private:
  bool on_ = false;
  unsigned saved_ = 0;
};

// Runs call(start, size) for every tile of an N-dimensional grid (ranges
// `range`, tiles of `tile`, the last dimension fastest), the tiles split
// over the pool behind `tp` (serially for a null handle).
template <int N, typename Call>
void run_grid(pthreadpool_t tp, const size_t (&range)[N], const size_t (&tile)[N], uint32_t flags,
              const Call& call) {
  size_t tiles[N], t[N];
  size_t total = 1;
  for (int d = 0; d < N; ++d) {
    if (range[d] == 0) return;
    t[d] = tile[d] == 0 ? 1 : tile[d];
    tiles[d] = (range[d] + t[d] - 1) / t[d];
    total *= tiles[d];
  }
  auto chunk = [&](size_t begin, size_t end) {
    DenormalGuard guard(flags);
    size_t idx[N];
    size_t rest = begin;
    for (int d = N - 1; d >= 0; --d) {
      idx[d] = rest % tiles[d];
      rest /= tiles[d];
    }
    for (size_t k = begin; k < end; ++k) {
      size_t start[N], size[N];
      for (int d = 0; d < N; ++d) {
        start[d] = idx[d] * t[d];
        size[d] = std::min(t[d], range[d] - start[d]);
      }
      call(start, size);
      for (int d = N - 1; d >= 0; --d) {
        if (++idx[d] < tiles[d]) break;
        idx[d] = 0;
      }
    }
  };
  ThreadPool* pool = ours(tp);
  const size_t threads = pool == nullptr ? 1 : pool->num_threads();
  if (threads <= 1 || total <= 1) {
    chunk(0, total);
    return;
  }
  // Items are claimed in blocks of about 1/16 of a thread's share from a
  // shared counter by every thread that runs (libpthreadpool's work stealing
  // at a coarser grain): one parallel_for index per thread, and a thread that
  // finds the counter exhausted returns, so the caller, which claims until
  // none is left, never waits for a worker that has not started and waits
  // at most one block for one that has.
  const size_t block = std::max<size_t>(1, total / (threads * 16));
  std::atomic<size_t> next{0};
  parallel_for(pool, threads, 1, [&](size_t, size_t) {
    for (;;) {
      const size_t begin = next.fetch_add(block, std::memory_order_relaxed);
      if (begin >= total) return;
      chunk(begin, std::min(total, begin + block));
    }
  });
}

// libpthreadpool's own definition of `name` (the next one after ours), or
// null when there is none.
void* real(const char* name) { return dlsym(RTLD_NEXT, name); }

// Calls `fn` (libpthreadpool's function of these argument types).
template <typename R, typename... A>
R call_real(void* fn, pthreadpool_t tp, A... args) {
  return reinterpret_cast<R (*)(pthreadpool_t, A...)>(fn)(tp, args...);
}

// A libpthreadpool handle goes to libpthreadpool's function; without one,
// the call runs serially (as on a null pool), which gives the same result.
// (pthreadpool.h overloads the names for C++ functors, so the function is
// looked up by name and called with the parameters' own types.)
#define ETR_SHIM_FORWARD(fn, ...)                             \
  if (tp != nullptr && etr::pool_shim::ours(tp) == nullptr) { \
    static void* const next = etr::pool_shim::real(#fn);      \
    if (next != nullptr) {                                    \
      etr::pool_shim::call_real<void>(next, tp, __VA_ARGS__); \
      return;                                                 \
    }                                                         \
    tp = nullptr;                                             \
  }

// Marks this object for active(): dladdr finds the object holding it.
void marker() {}

}  // namespace

bool active() {
  static const bool is_active = [] {
    Dl_info self;
    if (dladdr(reinterpret_cast<void*>(&marker), &self) == 0) return false;
    const char* names[] = {"pthreadpool_get_threads_count",
                           "pthreadpool_parallelize_1d",
                           "pthreadpool_parallelize_1d_tile_1d",
                           "pthreadpool_parallelize_2d",
                           "pthreadpool_parallelize_2d_tile_1d",
                           "pthreadpool_parallelize_2d_tile_2d",
                           "pthreadpool_parallelize_3d",
                           "pthreadpool_parallelize_3d_tile_1d",
                           "pthreadpool_parallelize_3d_tile_2d",
                           "pthreadpool_parallelize_4d",
                           "pthreadpool_parallelize_4d_tile_1d",
                           "pthreadpool_parallelize_4d_tile_2d",
                           "pthreadpool_parallelize_5d",
                           "pthreadpool_parallelize_5d_tile_1d",
                           "pthreadpool_parallelize_5d_tile_2d",
                           "pthreadpool_parallelize_6d",
                           "pthreadpool_parallelize_6d_tile_1d",
                           "pthreadpool_parallelize_6d_tile_2d",
                           "pthreadpool_parallelize_1d_with_uarch",
                           "pthreadpool_parallelize_2d_tile_2d_with_uarch",
                           "pthreadpool_parallelize_3d_tile_2d_with_uarch",
                           "pthreadpool_parallelize_4d_tile_2d_with_uarch"};
    for (const char* name : names) {
      void* f = dlsym(RTLD_DEFAULT, name);
      Dl_info where;
      if (f == nullptr || dladdr(f, &where) == 0 || where.dli_fbase != self.dli_fbase) return false;
    }
    return true;
  }();
  return is_active;
}

pthreadpool* make_handle(ThreadPool* pool) {
  Handle* h = new (std::nothrow) Handle{kMagic, pool};
  return reinterpret_cast<pthreadpool*>(h);
}

void destroy_handle(pthreadpool* handle) {
  Handle* h = reinterpret_cast<Handle*>(handle);
  if (h == nullptr) return;
  h->magic = 0;
  delete h;
}

}  // namespace pool_shim
}  // namespace etr

// The libpthreadpool functions (pthreadpool.h of 2021-05), on etr handles.
// Tile arguments: the task gets each dimension's index (the tile's start),
// then the sizes of the tiled dimensions' tiles.
using etr::pool_shim::ours;
using etr::pool_shim::run_grid;

extern "C" {

size_t pthreadpool_get_threads_count(pthreadpool_t tp) {
  if (tp != nullptr && ours(tp) == nullptr) {
    static void* const next = etr::pool_shim::real("pthreadpool_get_threads_count");
    return next != nullptr ? etr::pool_shim::call_real<size_t>(next, tp) : 1;
  }
  etr::ThreadPool* pool = ours(tp);
  return pool == nullptr ? 1 : pool->num_threads();
}

void pthreadpool_parallelize_1d(pthreadpool_t tp, pthreadpool_task_1d_t f, void* c, size_t r,
                                uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_1d, f, c, r, flags)
  const size_t rg[1] = {r}, tl[1] = {1};
  run_grid<1>(tp, rg, tl, flags, [&](const size_t* s, const size_t*) { f(c, s[0]); });
}

void pthreadpool_parallelize_1d_with_uarch(pthreadpool_t tp, pthreadpool_task_1d_with_id_t f,
                                           void* c, uint32_t def, uint32_t max, size_t r,
                                           uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_1d_with_uarch, f, c, def, max, r, flags)
  const size_t rg[1] = {r}, tl[1] = {1};
  run_grid<1>(tp, rg, tl, flags, [&](const size_t* s, const size_t*) { f(c, def, s[0]); });
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t tp, pthreadpool_task_1d_tile_1d_t f, void* c,
                                        size_t r, size_t t, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_1d_tile_1d, f, c, r, t, flags)
  const size_t rg[1] = {r}, tl[1] = {t};
  run_grid<1>(tp, rg, tl, flags, [&](const size_t* s, const size_t* n) { f(c, s[0], n[0]); });
}

void pthreadpool_parallelize_2d(pthreadpool_t tp, pthreadpool_task_2d_t f, void* c, size_t ri,
                                size_t rj, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_2d, f, c, ri, rj, flags)
  const size_t rg[2] = {ri, rj}, tl[2] = {1, 1};
  run_grid<2>(tp, rg, tl, flags, [&](const size_t* s, const size_t*) { f(c, s[0], s[1]); });
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t tp, pthreadpool_task_2d_tile_1d_t f, void* c,
                                        size_t ri, size_t rj, size_t tj, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_2d_tile_1d, f, c, ri, rj, tj, flags)
  const size_t rg[2] = {ri, rj}, tl[2] = {1, tj};
  run_grid<2>(tp, rg, tl, flags, [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t tp, pthreadpool_task_2d_tile_2d_t f, void* c,
                                        size_t ri, size_t rj, size_t ti, size_t tj,
                                        uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_2d_tile_2d, f, c, ri, rj, ti, tj, flags)
  const size_t rg[2] = {ri, rj}, tl[2] = {ti, tj};
  run_grid<2>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d_with_uarch(pthreadpool_t tp,
                                                   pthreadpool_task_2d_tile_2d_with_id_t f, void* c,
                                                   uint32_t def, uint32_t max, size_t ri, size_t rj,
                                                   size_t ti, size_t tj, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_2d_tile_2d_with_uarch, f, c, def, max, ri, rj, ti, tj,
                   flags)
  const size_t rg[2] = {ri, rj}, tl[2] = {ti, tj};
  run_grid<2>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, def, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_3d(pthreadpool_t tp, pthreadpool_task_3d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_3d, f, c, ri, rj, rk, flags)
  const size_t rg[3] = {ri, rj, rk}, tl[3] = {1, 1, 1};
  run_grid<3>(tp, rg, tl, flags, [&](const size_t* s, const size_t*) { f(c, s[0], s[1], s[2]); });
}

void pthreadpool_parallelize_3d_tile_1d(pthreadpool_t tp, pthreadpool_task_3d_tile_1d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t tk,
                                        uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_3d_tile_1d, f, c, ri, rj, rk, tk, flags)
  const size_t rg[3] = {ri, rj, rk}, tl[3] = {1, 1, tk};
  run_grid<3>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], s[2], n[2]); });
}

void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t tp, pthreadpool_task_3d_tile_2d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t tj, size_t tk,
                                        uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_3d_tile_2d, f, c, ri, rj, rk, tj, tk, flags)
  const size_t rg[3] = {ri, rj, rk}, tl[3] = {1, tj, tk};
  run_grid<3>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], s[2], n[1], n[2]); });
}

void pthreadpool_parallelize_3d_tile_2d_with_uarch(pthreadpool_t tp,
                                                   pthreadpool_task_3d_tile_2d_with_id_t f, void* c,
                                                   uint32_t def, uint32_t max, size_t ri, size_t rj,
                                                   size_t rk, size_t tj, size_t tk,
                                                   uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_3d_tile_2d_with_uarch, f, c, def, max, ri, rj, rk, tj,
                   tk, flags)
  const size_t rg[3] = {ri, rj, rk}, tl[3] = {1, tj, tk};
  run_grid<3>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, def, s[0], s[1], s[2], n[1], n[2]); });
}

void pthreadpool_parallelize_4d(pthreadpool_t tp, pthreadpool_task_4d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, size_t rl, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_4d, f, c, ri, rj, rk, rl, flags)
  const size_t rg[4] = {ri, rj, rk, rl}, tl[4] = {1, 1, 1, 1};
  run_grid<4>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t*) { f(c, s[0], s[1], s[2], s[3]); });
}

void pthreadpool_parallelize_4d_tile_1d(pthreadpool_t tp, pthreadpool_task_4d_tile_1d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t rl, size_t tl_,
                                        uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_4d_tile_1d, f, c, ri, rj, rk, rl, tl_, flags)
  const size_t rg[4] = {ri, rj, rk, rl}, tl[4] = {1, 1, 1, tl_};
  run_grid<4>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], s[2], s[3], n[3]); });
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t tp, pthreadpool_task_4d_tile_2d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t rl, size_t tk,
                                        size_t tl_, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_4d_tile_2d, f, c, ri, rj, rk, rl, tk, tl_, flags)
  const size_t rg[4] = {ri, rj, rk, rl}, tl[4] = {1, 1, tk, tl_};
  run_grid<4>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], s[2], s[3], n[2], n[3]); });
}

void pthreadpool_parallelize_4d_tile_2d_with_uarch(pthreadpool_t tp,
                                                   pthreadpool_task_4d_tile_2d_with_id_t f, void* c,
                                                   uint32_t def, uint32_t max, size_t ri, size_t rj,
                                                   size_t rk, size_t rl, size_t tk, size_t tl_,
                                                   uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_4d_tile_2d_with_uarch, f, c, def, max, ri, rj, rk, rl,
                   tk, tl_, flags)
  const size_t rg[4] = {ri, rj, rk, rl}, tl[4] = {1, 1, tk, tl_};
  run_grid<4>(tp, rg, tl, flags, [&](const size_t* s, const size_t* n) {
    f(c, def, s[0], s[1], s[2], s[3], n[2], n[3]);
  });
}

void pthreadpool_parallelize_5d(pthreadpool_t tp, pthreadpool_task_5d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, size_t rl, size_t rm, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_5d, f, c, ri, rj, rk, rl, rm, flags)
  const size_t rg[5] = {ri, rj, rk, rl, rm}, tl[5] = {1, 1, 1, 1, 1};
  run_grid<5>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t*) { f(c, s[0], s[1], s[2], s[3], s[4]); });
}

void pthreadpool_parallelize_5d_tile_1d(pthreadpool_t tp, pthreadpool_task_5d_tile_1d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t rl, size_t rm,
                                        size_t tm, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_5d_tile_1d, f, c, ri, rj, rk, rl, rm, tm, flags)
  const size_t rg[5] = {ri, rj, rk, rl, rm}, tl[5] = {1, 1, 1, 1, tm};
  run_grid<5>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t* n) { f(c, s[0], s[1], s[2], s[3], s[4], n[4]); });
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t tp, pthreadpool_task_5d_tile_2d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t rl, size_t rm,
                                        size_t tl_, size_t tm, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_5d_tile_2d, f, c, ri, rj, rk, rl, rm, tl_, tm, flags)
  const size_t rg[5] = {ri, rj, rk, rl, rm}, tl[5] = {1, 1, 1, tl_, tm};
  run_grid<5>(tp, rg, tl, flags, [&](const size_t* s, const size_t* n) {
    f(c, s[0], s[1], s[2], s[3], s[4], n[3], n[4]);
  });
}

void pthreadpool_parallelize_6d(pthreadpool_t tp, pthreadpool_task_6d_t f, void* c, size_t ri,
                                size_t rj, size_t rk, size_t rl, size_t rm, size_t rn,
                                uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_6d, f, c, ri, rj, rk, rl, rm, rn, flags)
  const size_t rg[6] = {ri, rj, rk, rl, rm, rn}, tl[6] = {1, 1, 1, 1, 1, 1};
  run_grid<6>(tp, rg, tl, flags,
              [&](const size_t* s, const size_t*) { f(c, s[0], s[1], s[2], s[3], s[4], s[5]); });
}

void pthreadpool_parallelize_6d_tile_1d(pthreadpool_t tp, pthreadpool_task_6d_tile_1d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t rl, size_t rm,
                                        size_t rn, size_t tn, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_6d_tile_1d, f, c, ri, rj, rk, rl, rm, rn, tn, flags)
  const size_t rg[6] = {ri, rj, rk, rl, rm, rn}, tl[6] = {1, 1, 1, 1, 1, tn};
  run_grid<6>(tp, rg, tl, flags, [&](const size_t* s, const size_t* n) {
    f(c, s[0], s[1], s[2], s[3], s[4], s[5], n[5]);
  });
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t tp, pthreadpool_task_6d_tile_2d_t f, void* c,
                                        size_t ri, size_t rj, size_t rk, size_t rl, size_t rm,
                                        size_t rn, size_t tm, size_t tn, uint32_t flags) {
  ETR_SHIM_FORWARD(pthreadpool_parallelize_6d_tile_2d, f, c, ri, rj, rk, rl, rm, rn, tm, tn, flags)
  const size_t rg[6] = {ri, rj, rk, rl, rm, rn}, tl[6] = {1, 1, 1, 1, tm, tn};
  run_grid<6>(tp, rg, tl, flags, [&](const size_t* s, const size_t* n) {
    f(c, s[0], s[1], s[2], s[3], s[4], s[5], n[4], n[5]);
  });
}

}  // extern "C"
