// Compatibility layer (extension/compat): the official DeviceMemoryBuffer,
// device memory owned through the registered DeviceAllocator (released on
// destruction). Move-only.
#pragma once

#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace runtime {

class DeviceMemoryBuffer final {
 public:
  // `size` bytes on device (type, index). NotFound (logged) when no
  // allocator is registered for `type`; the allocator's error when it fails.
  static Result<DeviceMemoryBuffer> create(size_t size, etensor::DeviceType type,
                                           etensor::DeviceIndex index = 0,
                                           size_t alignment = DeviceAllocator::kDefaultAlignment);

  DeviceMemoryBuffer() = default;
  ~DeviceMemoryBuffer() { release(); }
  DeviceMemoryBuffer(DeviceMemoryBuffer&& other) noexcept
      : ptr_(other.ptr_),
        size_(other.size_),
        allocator_(other.allocator_),
        device_index_(other.device_index_) {
    other.ptr_ = nullptr;
    other.size_ = 0;
    other.allocator_ = nullptr;
  }
  DeviceMemoryBuffer& operator=(DeviceMemoryBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = other.ptr_;
      size_ = other.size_;
      allocator_ = other.allocator_;
      device_index_ = other.device_index_;
      other.ptr_ = nullptr;
      other.size_ = 0;
      other.allocator_ = nullptr;
    }
    return *this;
  }
  DeviceMemoryBuffer(const DeviceMemoryBuffer&) = delete;
  DeviceMemoryBuffer& operator=(const DeviceMemoryBuffer&) = delete;

  void* data() const { return ptr_; }
  size_t size() const { return size_; }
  Span<uint8_t> as_span() const { return {static_cast<uint8_t*>(ptr_), size_}; }

 private:
  DeviceMemoryBuffer(void* ptr, size_t size, DeviceAllocator* allocator,
                     etensor::DeviceIndex device_index)
      : ptr_(ptr), size_(size), allocator_(allocator), device_index_(device_index) {}
  void release() {
    if (ptr_ != nullptr && allocator_ != nullptr) allocator_->deallocate(ptr_, device_index_);
    ptr_ = nullptr;
  }

  void* ptr_ = nullptr;
  size_t size_ = 0;
  DeviceAllocator* allocator_ = nullptr;
  etensor::DeviceIndex device_index_ = 0;
};

}  // namespace runtime
}  // namespace executorch
