// Compatibility layer (extension/compat): the official KernelRuntimeContext
// a kernel registered through the official API receives: failure reporting
// (fail(): the executor stops and reports the operator and instruction) and
// temporary memory (the method's temp allocator, reset after each call).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>

namespace executorch {
namespace runtime {

class KernelRuntimeContext {
 public:
  KernelRuntimeContext(EventTracer* event_tracer = nullptr,
                       MemoryAllocator* temp_allocator = nullptr)
      : event_tracer_(event_tracer), temp_allocator_(temp_allocator) {}
  // Internal (extension/compat): the context etr hands an official kernel.
  struct FromEtr {};
  KernelRuntimeContext(FromEtr, ::etr::MemoryAllocator* temp_allocator)
      : temp_allocator_(temp_allocator) {}

  void fail(Error error) { failure_state_ = error; }
  ET_NODISCARD Error failure_state() const { return failure_state_; }
  EventTracer* internal_event_tracer() { return event_tracer_; }

  // `size` bytes of temporary memory, valid until the kernel returns.
  // NotFound without a temp allocator, MemoryAllocationFailed when it is full.
  Result<void*> allocate_temp(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    ET_CHECK_OR_RETURN_ERROR(temp_allocator_ != nullptr, NotFound, "No temp allocator provided");
    void* temp_memory = temp_allocator_->allocate(size, alignment);
    ET_CHECK_OR_RETURN_ERROR(temp_memory != nullptr, MemoryAllocationFailed,
                             "Failed to allocate temp memory. Bytes requested: %zu", size);
    return temp_memory;
  }

 private:
  EventTracer* event_tracer_ = nullptr;
  ::etr::MemoryAllocator* temp_allocator_ = nullptr;
  Error failure_state_ = Error::Ok;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::KernelRuntimeContext;
using RuntimeContext = ::executorch::runtime::KernelRuntimeContext;
}  // namespace executor
}  // namespace torch

namespace executorch {
namespace aten {
using RuntimeContext = ::executorch::runtime::KernelRuntimeContext;
}  // namespace aten
}  // namespace executorch
namespace exec_aten = ::executorch::aten;
