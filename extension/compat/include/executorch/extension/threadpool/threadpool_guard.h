// Compatibility layer (extension/compat): the official NoThreadPoolGuard.
// While one is alive on a thread, a Module constructed on that thread runs
// its methods on the calling thread alone (no worker pool). Guards nest: each
// restores the state it found.
#pragma once

namespace executorch::extension::threadpool {

struct NoThreadPoolGuard {
  // True while a guard is alive on the calling thread.
  static bool is_enabled();
  static void set_enabled(bool enabled);

  NoThreadPoolGuard() : prev_mode_(NoThreadPoolGuard::is_enabled()) {
    NoThreadPoolGuard::set_enabled(true);
  }
  ~NoThreadPoolGuard() { NoThreadPoolGuard::set_enabled(prev_mode_); }

 private:
  const bool prev_mode_;
};

}  // namespace executorch::extension::threadpool

namespace torch::executorch::threadpool {
using ::executorch::extension::threadpool::NoThreadPoolGuard;
}  // namespace torch::executorch::threadpool
