// Compatibility layer (extension/compat): the official HierarchicalAllocator,
// the caller's planned-memory buffers, one per memory id. It holds the
// etr::HierarchicalAllocator over the same span array, which the runtime uses.
#pragma once

#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/assert.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {

class HierarchicalAllocator final {
 public:
  // Does not take ownership; the span array and every buffer must outlive
  // the allocator and every Method loaded with it.
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers), etr_(buffers) {}
  // With the device of each buffer (one per buffer, or ET_CHECK aborts).
  HierarchicalAllocator(Span<Span<uint8_t>> buffers,
                        Span<const etensor::Device> planned_buffer_devices)
      : buffers_(buffers), etr_(buffers), planned_buffer_devices_(planned_buffer_devices) {
    ET_CHECK_MSG(planned_buffer_devices.size() == buffers.size(),
                 "planned_buffer_devices size (%zu) must match buffers size (%zu)",
                 planned_buffer_devices.size(), buffers.size());
  }
  // Deprecated form: one buffer per allocator, each the allocator's whole
  // region (base_address(), size()); at most kMaxLegacyBuffers, or ET_CHECK
  // aborts. The spans live inside this object.
  ET_DEPRECATED HierarchicalAllocator(uint32_t n_allocators, MemoryAllocator* allocators)
      : buffers_(legacy_spans(n_allocators, allocators)), etr_(buffers_) {}

  // Address of [offset_bytes, offset_bytes + size_bytes) in buffer
  // `memory_id`: InvalidArgument for an overflowing range or a bad id,
  // MemoryAllocationFailed when the range does not fit the buffer.
  ET_NODISCARD Result<void*> get_offset_address(uint32_t memory_id, size_t offset_bytes,
                                                size_t size_bytes) {
    size_t end_bytes = 0;
    ET_CHECK_OR_RETURN_ERROR(
        !__builtin_add_overflow(offset_bytes, size_bytes, &end_bytes), InvalidArgument,
        "Integer overflow in offset_bytes (%zu) + size_bytes (%zu)", offset_bytes, size_bytes);
    ET_CHECK_OR_RETURN_ERROR(memory_id < buffers_.size(), InvalidArgument, "id %" PRIu32 " >= %zu",
                             memory_id, buffers_.size());
    const Span<uint8_t> buffer = buffers_[memory_id];
    ET_CHECK_OR_RETURN_ERROR(end_bytes <= buffer.size(), MemoryAllocationFailed,
                             "offset_bytes (%zu) + size_bytes (%zu) >= allocator size (%zu) "
                             "for memory_id %" PRIu32,
                             offset_bytes, size_bytes, buffer.size(), memory_id);
    return static_cast<void*>(buffer.data() + offset_bytes);
  }

  Span<const etensor::Device> planned_buffer_devices() const { return planned_buffer_devices_; }

  // Internal (extension/compat): the runtime's view of the same buffers.
  ::etr::HierarchicalAllocator* etr_allocator() { return &etr_; }

 private:
  static constexpr size_t kMaxLegacyBuffers = 16;
  Span<Span<uint8_t>> legacy_spans(uint32_t n_allocators, MemoryAllocator* allocators) {
    ET_CHECK_MSG(n_allocators <= kMaxLegacyBuffers, "n_allocators %" PRIu32 " > %zu", n_allocators,
                 kMaxLegacyBuffers);
    for (uint32_t i = 0; i < n_allocators; ++i) {
      legacy_buffers_[i] = Span<uint8_t>(allocators[i].base_address(), allocators[i].size());
    }
    return {legacy_buffers_, n_allocators};
  }

  // Declared before buffers_: filled by the deprecated constructor before
  // buffers_ points at it.
  Span<uint8_t> legacy_buffers_[kMaxLegacyBuffers];
  Span<Span<uint8_t>> buffers_;
  ::etr::HierarchicalAllocator etr_;
  Span<const etensor::Device> planned_buffer_devices_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::HierarchicalAllocator;
}  // namespace executor
}  // namespace torch
