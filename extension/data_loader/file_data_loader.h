// DataLoader that reads a file with pread into aligned heap buffers (from the
// platform allocate hook). Each load is an independent, owned copy.
#pragma once

#include <cstddef>

#include "runtime/core/data_loader.h"

namespace etr {

class FileDataLoader final : public DataLoader {
 public:
  // Opens `path` for reading. `alignment` (a power of two) applies to every
  // returned buffer. Fails with AccessFailed when the file cannot be opened.
  [[nodiscard]] static Result<FileDataLoader> from(const char* path, size_t alignment = 16);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  ~FileDataLoader() override;

  Result<FreeableBuffer> load(size_t offset, size_t size, SegmentKind kind) override;
  Error load_into(size_t offset, size_t size, SegmentKind kind, void* dst) override;
  Result<size_t> size() const override { return file_size_; }

 private:
  FileDataLoader(int fd, size_t file_size, size_t alignment)
      : fd_(fd), file_size_(file_size), alignment_(alignment) {}
  [[nodiscard]] Error read_exact(size_t offset, size_t size, void* dst) const;

  int fd_ = -1;
  size_t file_size_ = 0;
  size_t alignment_ = 16;
};

}  // namespace etr
