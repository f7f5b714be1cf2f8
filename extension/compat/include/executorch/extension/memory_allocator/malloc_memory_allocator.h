// Compatibility layer (extension/compat): MallocMemoryAllocator, a method
// (or temp) allocator that takes each allocation from malloc() and frees
// them all on reset() and destruction. etr allocates through it directly.
#pragma once

#include <executorch/extension/memory_allocator/memory_allocator_utils.h>
#include <executorch/runtime/core/memory_allocator.h>

#include <cstddef>
#include <cstdlib>
#include <vector>

namespace executorch {
namespace extension {

class MallocMemoryAllocator : public executorch::runtime::MemoryAllocator {
 public:
  MallocMemoryAllocator() : MemoryAllocator(0, nullptr) {}
  ~MallocMemoryAllocator() override { reset(); }

  // `size` bytes aligned to `alignment` (a power of two), or nullptr (logged).
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!isPowerOf2(alignment)) {
      ET_LOG(Error, "Alignment %zu is not a power of 2", alignment);
      return nullptr;
    }
    auto padded = utils::get_aligned_size(size, alignment);
    if (!padded.ok()) return nullptr;
    void* p = std::malloc(*padded == 0 ? 1 : *padded);
    if (p == nullptr) {
      ET_LOG(Error, "Malloc failed to allocate %zu bytes", *padded);
      return nullptr;
    }
    mem_ptrs_.push_back(p);
    return alignPointer(p, alignment);
  }

  // Frees every allocation.
  void reset() override {
    for (void* p : mem_ptrs_) std::free(p);
    mem_ptrs_.clear();
  }

 private:
  std::vector<void*> mem_ptrs_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::MallocMemoryAllocator;
}  // namespace util
}  // namespace executor
}  // namespace torch
