// Compatibility layer (extension/compat): the official MemoryAllocator, a
// bump allocator over a caller-owned buffer. It is an etr::MemoryAllocator
// (the same object, not a copy), so the runtime allocates from it directly;
// a subclass that overrides allocate() (as the official API allows, e.g. a
// malloc-backed allocator) is called by the runtime too.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/assert.h>
#include <executorch/runtime/platform/compiler.h>
#include <executorch/runtime/platform/log.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/memory_allocator.h"

namespace executorch {
namespace runtime {

class MemoryAllocator : public ::etr::MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = alignof(void*);

  // Does not take ownership; `base_address` (size bytes) must outlive the
  // allocator. A null base with a non-zero size aborts (ET_CHECK).
  MemoryAllocator(uint32_t size, uint8_t* base_address)
      : ::etr::MemoryAllocator(base_address, size), size_(size) {
    ET_CHECK_MSG(base_address != nullptr || size == 0, "Base address is null but size=%" PRIu32,
                 size);
    ET_CHECK_MSG(base_address == nullptr || size == 0 ||
                     UINTPTR_MAX - reinterpret_cast<uintptr_t>(base_address) >= size,
                 "Address space overflow in allocator");
  }
  ~MemoryAllocator() override = default;

  // `size` bytes aligned to `alignment` (a power of two), or nullptr (with
  // a logged error) when the buffer is exhausted or the alignment is bad.
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      ET_LOG(Error, "Alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    void* p = ::etr::MemoryAllocator::allocate(size, alignment);
    if (p == nullptr) {
      ET_LOG(Error, "Memory allocation failed: %zuB requested, %zuB available", size, free_size());
    }
    return p;
  }

  template <typename T>
  T* allocateInstance(size_t alignment = alignof(T)) {
    return static_cast<T*>(this->allocate(sizeof(T), alignment));
  }

  // `size` objects of T (uninitialised); nullptr on overflow or exhaustion.
  template <typename T>
  T* allocateList(size_t size, size_t alignment = alignof(T)) {
    size_t bytes = 0;
    if (__builtin_mul_overflow(size, sizeof(T), &bytes)) {
      ET_LOG(Error, "Failed to allocate list: size(%zu) * sizeof(T)(%zu) overflowed", size,
             sizeof(T));
      return nullptr;
    }
    return static_cast<T*>(this->allocate(bytes, alignment));
  }

  virtual uint8_t* base_address() const { return base(); }
  virtual uint32_t size() const { return size_; }
  virtual size_t used_size() const { return used(); }
  virtual size_t free_size() const { return capacity() - used(); }
  void reset() override { ::etr::MemoryAllocator::reset(); }
  // Allocation profiling is not recorded by etr; accepted and ignored.
  void enable_profiling(ET_UNUSED const char* name) {}

 protected:
  static constexpr bool isPowerOf2(size_t value) { return value && !(value & (value - 1)); }
  static inline uint8_t* alignPointer(void* ptr, size_t alignment) {
    uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
    const uintptr_t mask = static_cast<uintptr_t>(alignment - 1);
    address = (address + mask) & ~mask;
    return reinterpret_cast<uint8_t*>(address);
  }

 private:
  uint32_t size_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::MemoryAllocator;
}  // namespace executor
}  // namespace torch
