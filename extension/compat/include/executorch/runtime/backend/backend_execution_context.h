// Compatibility layer (extension/compat): what a backend's execute()
// receives: temporary memory (reset after the call) and the method name.
#pragma once

#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>

#include <cstddef>

namespace executorch {
namespace runtime {

class BackendExecutionContext final {
 public:
  BackendExecutionContext(EventTracer* event_tracer = nullptr,
                          MemoryAllocator* temp_allocator = nullptr,
                          const char* method_name = nullptr)
      : event_tracer_(event_tracer), temp_allocator_(temp_allocator), method_name_(method_name) {}

  EventTracer* event_tracer() { return event_tracer_; }
  // Temporary memory, or nullptr when there is none (or it is full).
  void* allocate(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_allocator_ == nullptr ? nullptr : temp_allocator_->allocate(size, alignment);
  }
  MemoryAllocator* get_temp_allocator() { return temp_allocator_; }
  const char* get_method_name() const { return method_name_; }

 private:
  EventTracer* event_tracer_ = nullptr;
  MemoryAllocator* temp_allocator_ = nullptr;
  const char* method_name_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendExecutionContext;
}  // namespace executor
}  // namespace torch
