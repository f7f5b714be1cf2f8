// Compatibility layer (extension/compat): SharedPtrDataLoader, a loader over
// bytes in memory owned through a shared_ptr (loads are views).
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace executorch {
namespace extension {

class SharedPtrDataLoader final : public executorch::runtime::DataLoader {
 public:
  SharedPtrDataLoader(std::shared_ptr<void> data, size_t size) : data_(data), size_(size) {}

  // A view of [offset, offset + size); InvalidArgument outside the data.
  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size,
      ET_UNUSED const DataLoader::SegmentInfo& segment_info) const override {
    size_t end = 0;
    ET_CHECK_OR_RETURN_ERROR(
        !__builtin_add_overflow(offset, size, &end) && end <= size_, InvalidArgument,
        "offset %zu + size %zu > size_ %zu, or overflow detected", offset, size, size_);
    return executorch::runtime::FreeableBuffer(static_cast<uint8_t*>(data_.get()) + offset, size,
                                               nullptr);
  }

  ET_NODISCARD executorch::runtime::Result<size_t> size() const override { return size_; }

 private:
  const std::shared_ptr<void> data_;
  const size_t size_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::SharedPtrDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
