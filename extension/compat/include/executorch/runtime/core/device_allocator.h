// Compatibility layer (extension/compat): the official DeviceAllocator
// interface and its registry (one allocator per device type). etr plans
// CPU memory only, so nothing registers one by default; a backend library
// may still register its own.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>

#include <cstddef>

namespace executorch {
namespace runtime {

class DeviceAllocator {
 public:
  static constexpr size_t kDefaultAlignment = MemoryAllocator::kDefaultAlignment;

  virtual ~DeviceAllocator() = default;
  virtual Result<void*> allocate(size_t nbytes, etensor::DeviceIndex index,
                                 size_t alignment = kDefaultAlignment) = 0;
  virtual void deallocate(void* ptr, etensor::DeviceIndex index) = 0;
  virtual Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                    etensor::DeviceIndex index) = 0;
  virtual Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                    etensor::DeviceIndex index) = 0;
  virtual etensor::DeviceType device_type() const = 0;
};

class DeviceAllocatorRegistry {
 public:
  static DeviceAllocatorRegistry& instance();
  // Does not take ownership; `alloc` must outlive its use. A second
  // allocator for the same device type replaces the first.
  void register_allocator(DeviceAllocator* alloc);
  // The allocator for `type`, or null.
  DeviceAllocator* get_allocator(etensor::DeviceType type);

 private:
  DeviceAllocatorRegistry() = default;
  DeviceAllocatorRegistry(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry& operator=(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry(DeviceAllocatorRegistry&&) = delete;
  DeviceAllocatorRegistry& operator=(DeviceAllocatorRegistry&&) = delete;

  DeviceAllocator* allocators_[etensor::kNumDeviceTypes] = {};
};

void register_device_allocator(DeviceAllocator* alloc);
DeviceAllocator* get_device_allocator(etensor::DeviceType type);

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::DeviceAllocator;
using ::executorch::runtime::DeviceAllocatorRegistry;
using ::executorch::runtime::get_device_allocator;
using ::executorch::runtime::register_device_allocator;
}  // namespace executor
}  // namespace torch
