// Compatibility layer (extension/compat): the official FileDataLoader, which
// reads a file into aligned heap buffers. It wraps etr::FileDataLoader (the
// runtime reads through that one directly).
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <memory>

namespace executorch {
namespace extension {

class FileDataLoader final : public executorch::runtime::DataLoader {
 public:
  // Opens `file_name`. AccessFailed when it cannot be opened,
  // InvalidArgument when `alignment` is not a power of two.
  static executorch::runtime::Result<FileDataLoader> from(
      const char* file_name, size_t alignment = alignof(std::max_align_t));
  ET_DEPRECATED static executorch::runtime::Result<FileDataLoader> From(
      const char* file_name, size_t alignment = alignof(std::max_align_t)) {
    return from(file_name, alignment);
  }

  FileDataLoader(FileDataLoader&& rhs) noexcept;
  ~FileDataLoader() override;

  ET_NODISCARD executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const DataLoader::SegmentInfo& segment_info) const override;
  ET_NODISCARD executorch::runtime::Result<size_t> size() const override;
  ET_NODISCARD executorch::runtime::Error load_into(size_t offset, size_t size,
                                                    const SegmentInfo& segment_info,
                                                    void* buffer) const override;
  ::etr::DataLoader* etr_loader() const override;

  // Internal (extension/compat).
  struct State;
  explicit FileDataLoader(std::unique_ptr<State> state);

 private:
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  FileDataLoader& operator=(FileDataLoader&&) = delete;

  std::unique_ptr<State> state_;
};

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
namespace util {
using ::executorch::extension::FileDataLoader;
}  // namespace util
}  // namespace executor
}  // namespace torch
