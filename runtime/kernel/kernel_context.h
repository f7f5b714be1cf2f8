// KernelContext: what a kernel sees of the runtime while it runs.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"

namespace etr {

class KernelContext final {
 public:
  // Does not take ownership; `temp` (may be null) must outlive the context.
  explicit KernelContext(MemoryAllocator* temp = nullptr) : temp_(temp) {}

  // Records a failure; the executor stops and returns it after the kernel.
  void fail(Error e) { failure_ = e; }
  Error failure_state() const { return failure_; }
  void clear_failure() { failure_ = Error::Ok; }

  // Scratch memory valid until the kernel returns; nullptr when no temp
  // allocator was given or it is exhausted.
  void* allocate_temp(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_ == nullptr ? nullptr : temp_->allocate(size, alignment);
  }
  MemoryAllocator* temp_allocator() const { return temp_; }

 private:
  MemoryAllocator* temp_;
  Error failure_ = Error::Ok;
};

}  // namespace etr

// Inside a kernel (void function taking `KernelContext& ctx`): if `cond` is
// false, log the message, mark the context failed with `error` and return.
#define ETR_KERNEL_CHECK(ctx, cond, error, ...) \
  do {                                          \
    if (!(cond)) {                              \
      ETR_LOG(Error, __VA_ARGS__);              \
      (ctx).fail(error);                        \
      return;                                   \
    }                                           \
  } while (0)

// Propagates a failed Error-returning call out of a kernel.
#define ETR_KERNEL_CHECK_OK(ctx, expr, ...)   \
  do {                                        \
    const ::etr::Error etr_kerr_ = (expr);    \
    if (etr_kerr_ != ::etr::Error::Ok) {      \
      ETR_LOG(Error, __VA_ARGS__);            \
      (ctx).fail(etr_kerr_);                  \
      return;                                 \
    }                                         \
  } while (0)
