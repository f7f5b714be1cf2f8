// The official platform layer (PAL, ET_LOG, runtime_abort, runtime_init),
// device allocators and TensorLayout, over etr's platform hooks.
#include "runtime/platform/platform.h"

#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/core/tensor_layout.h>
#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/core/error.h"

// ---- Default PAL: etr's platform hooks -------------------------------------

extern "C" {

void et_pal_init(void) {}

void et_pal_abort(void) { ::etr::platform_abort("executorch: runtime_abort()"); }

et_timestamp_t et_pal_current_ticks(void) { return ::etr::platform_now_ns(); }

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1, 1}; }

void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level,
                             const char* filename, const char* function, size_t line,
                             const char* message, size_t length) {
  (void)timestamp, (void)function, (void)length;
  const ::etr::LogLevel etr_level = level == kDebug  ? ::etr::LogLevel::Debug
                                    : level == kInfo ? ::etr::LogLevel::Info
                                                     : ::etr::LogLevel::Error;
  ::etr::platform_hooks().log(etr_level, filename, static_cast<int>(line), message);
}

void* et_pal_allocate(size_t size) { return std::malloc(size); }

void et_pal_free(void* ptr) { std::free(ptr); }

}  // extern "C"

namespace executorch {
namespace runtime {
namespace {

PalImpl g_pal;

}  // namespace

PalImpl PalImpl::create(pal_emit_log_message_method emit_log_message, const char* source_filename) {
  PalImpl impl;
  impl.emit_log_message = emit_log_message;
  impl.source_filename = source_filename;
  return impl;
}

PalImpl PalImpl::create(pal_init_method init, pal_abort_method abort,
                        pal_current_ticks_method current_ticks,
                        pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier,
                        pal_emit_log_message_method emit_log_message, pal_allocate_method allocate,
                        pal_free_method free, const char* source_filename) {
  PalImpl impl;
  impl.init = init;
  impl.abort = abort;
  impl.current_ticks = current_ticks;
  impl.ticks_to_ns_multiplier = ticks_to_ns_multiplier;
  impl.emit_log_message = emit_log_message;
  impl.allocate = allocate;
  impl.free = free;
  impl.source_filename = source_filename;
  return impl;
}

bool register_pal(PalImpl impl) {
  g_pal = impl;
  return true;
}

const PalImpl* get_pal_impl() { return &g_pal; }

void pal_init() { g_pal.init != nullptr ? g_pal.init() : et_pal_init(); }

void pal_abort() {
  if (g_pal.abort != nullptr) g_pal.abort();
  et_pal_abort();
}

et_timestamp_t pal_current_ticks() {
  return g_pal.current_ticks != nullptr ? g_pal.current_ticks() : et_pal_current_ticks();
}

et_tick_ratio_t pal_ticks_to_ns_multiplier() {
  return g_pal.ticks_to_ns_multiplier != nullptr ? g_pal.ticks_to_ns_multiplier()
                                                 : et_pal_ticks_to_ns_multiplier();
}

void pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                          const char* function, size_t line, const char* message, size_t length) {
  if (g_pal.emit_log_message != nullptr) {
    g_pal.emit_log_message(timestamp, level, filename, function, line, message, length);
  } else {
    et_pal_emit_log_message(timestamp, level, filename, function, line, message, length);
  }
}

void* pal_allocate(size_t size) {
  return g_pal.allocate != nullptr ? g_pal.allocate(size) : et_pal_allocate(size);
}

void pal_free(void* ptr) { g_pal.free != nullptr ? g_pal.free(ptr) : et_pal_free(ptr); }

void runtime_abort() {
  pal_abort();
  std::abort();  // a PAL abort that returns must still not return here
}

void runtime_init() { pal_init(); }

namespace internal {

et_timestamp_t get_log_timestamp() { return pal_current_ticks(); }

void vlogf(LogLevel level, et_timestamp_t timestamp, const char* filename, const char* function,
           size_t line, const char* format, va_list args) {
  char buffer[512];
  const int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  const size_t length = n < 0 ? 0
                              : (static_cast<size_t>(n) < sizeof(buffer) ? static_cast<size_t>(n)
                                                                         : sizeof(buffer) - 1);
  const et_pal_log_level_t pal_level = level == LogLevel::Debug   ? kDebug
                                       : level == LogLevel::Info  ? kInfo
                                       : level == LogLevel::Error ? kError
                                       : level == LogLevel::Fatal ? kFatal
                                                                  : kUnknown;
  pal_emit_log_message(timestamp, pal_level, filename, function, line, buffer, length);
}

Error to_official_error(int etr_error) {
  const auto e = static_cast<::etr::Error>(etr_error);
  if (e == ::etr::Error::BackendMissing) return Error::NotFound;
  if (std::strcmp(::etr::to_string(e), "Unknown") == 0) return Error::Internal;
  return static_cast<Error>(static_cast<error_code_t>(etr_error));
}

}  // namespace internal

// ---- Device allocators -----------------------------------------------------

DeviceAllocatorRegistry& DeviceAllocatorRegistry::instance() {
  static DeviceAllocatorRegistry registry;
  return registry;
}

void DeviceAllocatorRegistry::register_allocator(DeviceAllocator* alloc) {
  if (alloc == nullptr) return;
  const auto index = static_cast<size_t>(alloc->device_type());
  ET_CHECK_MSG(index < etensor::kNumDeviceTypes, "device type %zu out of range", index);
  allocators_[index] = alloc;
}

DeviceAllocator* DeviceAllocatorRegistry::get_allocator(etensor::DeviceType type) {
  const auto index = static_cast<size_t>(type);
  return index < etensor::kNumDeviceTypes ? allocators_[index] : nullptr;
}

void register_device_allocator(DeviceAllocator* alloc) {
  DeviceAllocatorRegistry::instance().register_allocator(alloc);
}

DeviceAllocator* get_device_allocator(etensor::DeviceType type) {
  return DeviceAllocatorRegistry::instance().get_allocator(type);
}

Result<DeviceMemoryBuffer> DeviceMemoryBuffer::create(size_t size, etensor::DeviceType type,
                                                      etensor::DeviceIndex index,
                                                      size_t alignment) {
  DeviceAllocator* allocator = get_device_allocator(type);
  ET_CHECK_OR_RETURN_ERROR(allocator != nullptr, NotFound,
                           "No device allocator registered for device type %d",
                           static_cast<int>(type));
  Result<void*> ptr = allocator->allocate(size, index, alignment);
  if (!ptr.ok()) return ptr.error();
  return DeviceMemoryBuffer(*ptr, size, allocator, index);
}

// ---- TensorLayout ----------------------------------------------------------

Result<const TensorLayout> TensorLayout::create(Span<const int32_t> sizes,
                                                Span<const uint8_t> dim_order,
                                                executorch::aten::ScalarType scalar_type) {
  ET_CHECK_OR_RETURN_ERROR(sizes.size() == dim_order.size(), InvalidArgument,
                           "TensorLayout: %zu sizes but %zu dim order entries", sizes.size(),
                           dim_order.size());
  ET_CHECK_OR_RETURN_ERROR(::etr::element_size(scalar_type) != 0, InvalidArgument,
                           "TensorLayout: invalid dtype %d", static_cast<int>(scalar_type));
  bool seen[::etr::kTensorMaxDim] = {};
  ET_CHECK_OR_RETURN_ERROR(sizes.size() <= ::etr::kTensorMaxDim, InvalidArgument,
                           "TensorLayout: rank %zu above %zu", sizes.size(), ::etr::kTensorMaxDim);
  size_t nbytes = ::etr::element_size(scalar_type);
  for (size_t i = 0; i < sizes.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(sizes[i] >= 0, InvalidArgument, "TensorLayout: size %zu is %d", i,
                             static_cast<int>(sizes[i]));
    ET_CHECK_OR_RETURN_ERROR(dim_order[i] < sizes.size() && !seen[dim_order[i]], InvalidArgument,
                             "TensorLayout: dim order is not a permutation (entry %zu)", i);
    seen[dim_order[i]] = true;
    ET_CHECK_OR_RETURN_ERROR(::etr::checked_mul(nbytes, static_cast<size_t>(sizes[i]), &nbytes),
                             InvalidArgument, "TensorLayout: byte size overflows");
  }
  return TensorLayout(sizes, dim_order, scalar_type, nbytes);
}

}  // namespace runtime
}  // namespace executorch
