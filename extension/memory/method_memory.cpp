#include "extension/memory/method_memory.h"

#include <cstring>

#include "runtime/platform/log.h"
#include "runtime/platform/platform.h"

namespace etr {

MethodMemory::MethodMemory(size_t chunk_bytes, void* temp, size_t temp_bytes)
    : arena_(chunk_bytes),
      temp_data_(temp),
      temp_(temp, temp_bytes),
      manager_(&arena_, &planned_, &temp_) {}

MethodMemory::~MethodMemory() {
  for (size_t i = 0; i < num_planned_; ++i) platform_deallocate(planned_data_[i]);
  platform_deallocate(fixed_data_);
  platform_deallocate(temp_data_);
}

Result<std::unique_ptr<MethodMemory>> MethodMemory::create(const MethodMeta& meta,
                                                           const MethodMemoryOptions& options) {
  const size_t align = PlatformArena::kBufferAlignment;
  void* temp = options.temp_bytes == 0 ? nullptr : platform_allocate(options.temp_bytes, align);
  if (options.temp_bytes != 0 && temp == nullptr) {
    ETR_FAIL(Error::MemoryAllocationFailed,
             "method '%s': cannot allocate the temp allocator (%zu bytes)", meta.name(),
             options.temp_bytes);
  }
  std::unique_ptr<MethodMemory> m(
      new MethodMemory(options.arena_chunk_bytes, temp, temp == nullptr ? 0 : options.temp_bytes));
  const size_t n = meta.num_memory_planned_buffers();
  m->planned_data_.reset(new void*[n == 0 ? 1 : n]);
  m->planned_spans_.reset(new Span<uint8_t>[n == 0 ? 1 : n]);
  for (size_t i = 0; i < n; ++i) {
    Result<int64_t> size = meta.memory_planned_buffer_size(i);
    if (!size.ok()) return size.error();
    const size_t bytes = static_cast<size_t>(*size);
    void* p = platform_allocate(bytes == 0 ? 1 : bytes, align);
    if (p == nullptr) {
      ETR_FAIL(Error::MemoryAllocationFailed,
               "method '%s': cannot allocate planned buffer %zu (%zu bytes)", meta.name(), i,
               bytes);
    }
    // Zeroed, as the official runtime's Module gives them: a mutable buffer
    // exported without its initial state (no InitializedMutableBufferPass)
    // starts from what its planned memory holds, and programs expect zeros.
    std::memset(p, 0, bytes == 0 ? 1 : bytes);
    m->planned_data_[i] = p;
    m->planned_spans_[i] = Span<uint8_t>(static_cast<uint8_t*>(p), bytes);
    m->num_planned_ = i + 1;
    m->planned_bytes_ += bytes;
  }
  m->planned_ = HierarchicalAllocator(Span<Span<uint8_t>>(m->planned_spans_.get(), n));
  if (options.method_bytes != 0) {
    m->fixed_data_ = platform_allocate(options.method_bytes, align);
    if (m->fixed_data_ == nullptr) {
      ETR_FAIL(Error::MemoryAllocationFailed,
               "method '%s': cannot allocate the method allocator (%zu bytes)", meta.name(),
               options.method_bytes);
    }
    m->fixed_.reset(new MemoryAllocator(m->fixed_data_, options.method_bytes));
    m->method_allocator_ = m->fixed_.get();
    m->manager_ = MemoryManager(m->fixed_.get(), &m->planned_, &m->temp_);
  }
  return Result<std::unique_ptr<MethodMemory>>(std::move(m));
}

size_t MethodMemory::method_bytes_used() const {
  return fixed_ != nullptr ? fixed_->used() : arena_.bytes_needed();
}

size_t MethodMemory::method_bytes_reserved() const {
  return fixed_ != nullptr ? fixed_->capacity() : arena_.bytes_reserved();
}

}  // namespace etr
