// Bump allocator over a caller-owned buffer. Never touches the heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/checked_math.h"
#include "runtime/core/span.h"

namespace etr {

class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = 16;

  // Does not take ownership; `base` (size bytes) must outlive the allocator.
  MemoryAllocator(void* base, size_t size)
      : base_(static_cast<uint8_t*>(base)), size_(base == nullptr ? 0 : size) {}
  virtual ~MemoryAllocator() = default;

  // `size` bytes aligned to `alignment` (a power of two), or nullptr when the
  // buffer is exhausted. Zero-size requests return a valid non-null pointer
  // while the buffer is non-empty.
  virtual void* allocate(size_t size, size_t alignment = kDefaultAlignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
    const uintptr_t aligned = (start + (alignment - 1)) & ~(uintptr_t{alignment} - 1);
    const size_t pad = static_cast<size_t>(aligned - start);
    size_t need = 0;
    if (aligned < start || !checked_add(pad, size, &need) || need > size_ - used_) {
      return nullptr;
    }
    used_ += need;
    if (used_ > peak_) peak_ = used_;
    return reinterpret_cast<void*>(aligned);
  }

  // `count` objects of T, uninitialised; nullptr on overflow or exhaustion.
  template <typename T>
  T* allocate_array(size_t count, size_t alignment = alignof(T)) {
    size_t bytes = 0;
    if (!checked_mul(count, sizeof(T), &bytes)) return nullptr;
    return static_cast<T*>(allocate(bytes, alignment));
  }

  // Releases everything allocated so far.
  virtual void reset() { used_ = 0; }

  size_t used() const { return used_; }
  size_t peak() const { return peak_; }
  size_t capacity() const { return size_; }
  uint8_t* base() const { return base_; }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
  size_t peak_ = 0;
};

// The planned memory of a method: one caller-owned buffer per memory id. The
// program addresses them 1-based (memory_id 1 is buffers[0]).
class HierarchicalAllocator final {
 public:
  HierarchicalAllocator() = default;
  // Does not take ownership; the span array and every buffer must outlive
  // the allocator (and every method that uses it).
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}

  size_t num_buffers() const { return buffers_.size(); }
  Span<uint8_t> buffer(size_t index) const { return buffers_[index]; }

  // Address of [offset, offset+size) inside buffer `index` (0-based), or
  // nullptr when the index is out of range or the range does not fit.
  uint8_t* offset_address(size_t index, uint64_t offset, uint64_t size) const {
    if (index >= buffers_.size()) return nullptr;
    const Span<uint8_t> b = buffers_[index];
    if (!range_within(offset, size, b.size())) return nullptr;
    return b.data() + offset;
  }

 private:
  Span<Span<uint8_t>> buffers_;
};

// The three memory roles a method uses. Does not take ownership; all three
// must outlive every Method loaded with this manager.
class MemoryManager final {
 public:
  // method_allocator: load-time structures (values, tensor metadata,
  //   instruction tables, delegate state). Required.
  // planned_memory: buffers for memory-planned tensors; may be null when the
  //   method plans nothing.
  // temp_allocator: per-kernel scratch, reset after every instruction; may be
  //   null when no kernel needs scratch.
  explicit MemoryManager(MemoryAllocator* method_allocator,
                         HierarchicalAllocator* planned_memory = nullptr,
                         MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator),
        planned_memory_(planned_memory),
        temp_allocator_(temp_allocator) {}

  MemoryAllocator* method_allocator() const { return method_allocator_; }
  HierarchicalAllocator* planned_memory() const { return planned_memory_; }
  MemoryAllocator* temp_allocator() const { return temp_allocator_; }

 private:
  MemoryAllocator* method_allocator_;
  HierarchicalAllocator* planned_memory_;
  MemoryAllocator* temp_allocator_;
};

}  // namespace etr
