// Compatibility layer (extension/compat): PlatformMemoryAllocator, a
// MemoryAllocator over pal_allocate() that frees everything on reset() and
// destruction (each allocation carries a list node in front of it).
#pragma once

#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {
namespace internal {

class PlatformMemoryAllocator final : public MemoryAllocator {
 public:
  PlatformMemoryAllocator() : MemoryAllocator(0, nullptr) {}
  ~PlatformMemoryAllocator() override { reset(); }

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "Alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    size_t alloc_size = 0;
    if (__builtin_add_overflow(sizeof(Node), size, &alloc_size) ||
        __builtin_add_overflow(alloc_size, alignment - 1, &alloc_size)) {
      ET_LOG(Error, "Allocation size overflow: size %zu, alignment %zu", size, alignment);
      return nullptr;
    }
    void* memory = pal_allocate(alloc_size);
    if (memory == nullptr) {
      ET_LOG(Error, "Failed to allocate %zu bytes", alloc_size);
      return nullptr;
    }
    Node* node = static_cast<Node*>(memory);
    node->next = head_;
    head_ = node;
    return alignPointer(static_cast<uint8_t*>(memory) + sizeof(Node), alignment);
  }

  void reset() override {
    while (head_ != nullptr) {
      Node* next = head_->next;
      pal_free(head_);
      head_ = next;
    }
  }

 private:
  struct Node {
    Node* next;
  };
  Node* head_ = nullptr;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
