// Compatibility layer (extension/compat): the official BufferDataLoader, a
// loader over bytes already in memory (loads are views, never copies).
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace executorch {
namespace extension {

class BufferDataLoader final : public executorch::runtime::DataLoader {
 public:
  // Does not take ownership; `data` must outlive the loader and every
  // Program loaded from it.
  BufferDataLoader(const void* data, size_t size)
      : data_(reinterpret_cast<const uint8_t*>(data)), size_(size) {}

  // A view of [offset, offset + size); InvalidArgument when it is outside
  // the buffer or the sum overflows.
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size,
      ET_UNUSED const DataLoader::SegmentInfo& segment_info) const override {
    size_t end = 0;
    ET_CHECK_OR_RETURN_ERROR(
        !__builtin_add_overflow(offset, size, &end) && end <= size_, InvalidArgument,
        "offset %zu + size %zu > size_ %zu, or overflow detected", offset, size, size_);
    return executorch::runtime::FreeableBuffer(data_ + offset, size, nullptr);
  }

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override { return size_; }

  ET_NODISCARD executorch::runtime::Error load_into(size_t offset, size_t size,
                                                    const SegmentInfo& segment_info,
                                                    void* buffer) const override {
    ET_CHECK_OR_RETURN_ERROR(buffer != nullptr, InvalidArgument,
                             "Destination buffer cannot be null");
    auto result = load(offset, size, segment_info);
    if (!result.ok()) return result.error();
    if (size != 0) std::memcpy(buffer, result->data(), size);
    return executorch::runtime::Error::Ok;
  }

 private:
  const uint8_t* const data_;
  const size_t size_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::BufferDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
