// What a kernel sees of the runtime: KernelContext while it runs, and
// KernelPrepareContext while its instruction is prepared at method load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/thread_pool.h"

namespace etr {

class KernelContext final {
 public:
  // Does not take ownership; `temp` and `pool` (either may be null) must
  // outlive the context.
  explicit KernelContext(MemoryAllocator* temp = nullptr, ThreadPool* pool = nullptr)
      : temp_(temp), pool_(pool) {}

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

  // The process's thread pool for this method; null means single-threaded.
  ThreadPool* thread_pool() const { return pool_; }

  // Fully qualified name of the operator being run ("aten::add.out"), for
  // messages; "" outside an executor.
  const char* op_name() const { return op_name_; }

  // The state the kernel's prepare step built for this instruction (null
  // when it built none). Typed access: ctx.state<MyState>().
  void* state() const { return state_; }
  template <typename T>
  T* state() const {
    return static_cast<T*>(state_);
  }

  // Executor use: sets the per-instruction fields before each call.
  // The number of values the current call passes (return slot included),
  // for kernels registered with kVariadicArgs (kernel.h); 0 when unknown.
  size_t num_args() const { return num_args_; }

  void bind_instruction(const char* op_name, void* state, size_t num_args = 0) {
    op_name_ = op_name;
    state_ = state;
    num_args_ = num_args;
  }

 private:
  MemoryAllocator* temp_;
  ThreadPool* pool_;
  const char* op_name_ = "";
  void* state_ = nullptr;
  size_t num_args_ = 0;
  Error failure_ = Error::Ok;
};

// Given to a kernel's prepare step, once per instruction, at method load.
class KernelPrepareContext final {
 public:
  // Does not take ownership; `method_allocator` and `pool` (may be null)
  // must outlive the method.
  KernelPrepareContext(const char* op_name, MemoryAllocator* method_allocator, ThreadPool* pool)
      : op_name_(op_name), alloc_(method_allocator), pool_(pool) {}

  const char* op_name() const { return op_name_; }
  ThreadPool* thread_pool() const { return pool_; }

  // Memory that lives as long as the method (packed weights, tables); from
  // the method allocator. nullptr when it is exhausted: prepare should then
  // return Error::MemoryAllocationFailed.
  void* allocate(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return alloc_ == nullptr ? nullptr : alloc_->allocate(size, alignment);
  }
  // Allocates and default-constructs a T (trivially destructible: the method
  // never runs destructors on kernel state); nullptr when out of memory.
  template <typename T>
  T* make_state() {
    static_assert(std::is_trivially_destructible<T>::value, "kernel state is never destroyed");
    void* p = allocate(sizeof(T), alignof(T));
    return p == nullptr ? nullptr : new (p) T();
  }

  // True when argument `index` (schema order, 0-based) is a program
  // constant: a tensor whose data is fixed for the life of the method
  // (weights, biases), so prepare may pack or transform it once. Always false
  // for index >= 64.
  bool is_constant_arg(size_t index) const {
    return index < 64 && ((constant_args_ >> index) & 1u) != 0;
  }
  // Loader use: bit i set when argument i is a program constant.
  void set_constant_args(uint64_t mask) { constant_args_ = mask; }
  // Arguments that are scalars the method writes while it runs (a prim op's
  // result stored over the exporter's Int placeholder): their tag at load is
  // a placeholder, so any scalar kind is accepted for them (see accept_call).
  bool is_run_time_scalar_arg(size_t index) const {
    return index < 64 && ((run_time_scalar_args_ >> index) & 1u) != 0;
  }
  void set_run_time_scalar_args(uint64_t mask) { run_time_scalar_args_ = mask; }
  // Hands `state` to every run of this instruction (KernelContext::state()).
  void set_state(void* state) { state_ = state; }
  void* state() const { return state_; }
  // How many arguments the call has (return slot included); set before
  // prepare runs (a variadic entry learns its call's arity here).
  size_t num_args() const { return num_args_; }
  void set_num_args(size_t n) { num_args_ = n; }

 private:
  const char* op_name_;
  MemoryAllocator* alloc_;
  ThreadPool* pool_;
  void* state_ = nullptr;
  size_t num_args_ = 0;
  uint64_t constant_args_ = 0;
  uint64_t run_time_scalar_args_ = 0;
};

}  // namespace etr

// Inside a kernel (a void function taking `KernelContext& ctx`): evaluate an
// expression yielding Error; if it failed, record it in the context and
// return. The expression logs its own message (ETR_FAIL / ETR_CHECK_OR_FAIL).
#define ETR_KERNEL_TRY(ctx, expr)          \
  do {                                     \
    const ::etr::Error etr_kerr_ = (expr); \
    if (etr_kerr_ != ::etr::Error::Ok) {   \
      (ctx).fail(etr_kerr_);               \
      return;                              \
    }                                      \
  } while (0)

// Inside a kernel: if `cond` is false, log the message, mark the context
// failed with `error` and return. Prefer Error-returning check functions
// with ETR_KERNEL_TRY; this form is for one-off conditions in run().
#define ETR_KERNEL_CHECK(ctx, cond, error, ...) \
  do {                                          \
    if (!(cond)) {                              \
      ETR_LOG(Error, __VA_ARGS__);              \
      (ctx).fail(error);                        \
      return;                                   \
    }                                           \
  } while (0)
