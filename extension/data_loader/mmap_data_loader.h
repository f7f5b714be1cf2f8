// DataLoader that maps a file privately (copy-on-write; nothing is ever
// written back to the file). Each load maps the pages covering
// its range (no copy; the kernel pages data in on first touch) and unmaps
// them when the FreeableBuffer is released, so a segment that is dropped
// after load (e.g. a delegate payload) gives its memory back.
//
// The file must not be truncated while buffers from it are alive: touching a
// page past the new end raises SIGBUS, as with any mapping, and mlock does not
// prevent it. Callers that cannot rule that out use FileDataLoader, which
// copies each load into memory it owns (Module: ModuleOptions::Loader::File).
#pragma once

#include <cstddef>

#include "runtime/core/data_loader.h"

namespace etr {

class MmapDataLoader final : public DataLoader {
 public:
  enum class Mlock : uint8_t {
    // Pages may be evicted and read back from the file.
    None,
    // Each load is locked in RAM (mlock); a load fails with AccessFailed when
    // the lock fails (e.g. RLIMIT_MEMLOCK).
    Lock,
    // Lock when possible; a failed lock is logged at Info level only.
    LockIgnoreErrors,
  };

  // Opens `path` for reading. Fails with AccessFailed when the file cannot
  // be opened or is not a regular file.
  [[nodiscard]] static Result<MmapDataLoader> from(const char* path, Mlock mlock = Mlock::None);

  MmapDataLoader(MmapDataLoader&& other) noexcept;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;
  // Closes the file; buffers already returned stay valid (they own their mapping).
  ~MmapDataLoader() override;

  // A read-only view of [offset, offset+size): its own mapping of the pages
  // covering the range, unmapped on release. Fails with InvalidArgument when
  // the range is outside the file (overflow-checked), AccessFailed when
  // mmap or mlock fails. A zero-size load returns an empty buffer.
  Result<FreeableBuffer> load(size_t offset, size_t size, SegmentKind kind) override;
  // Copies with pread (no mapping).
  Error load_into(size_t offset, size_t size, SegmentKind kind, void* dst) override;
  Result<size_t> size() const override { return file_size_; }

 private:
  MmapDataLoader(int fd, size_t file_size, size_t page_size, Mlock mlock)
      : fd_(fd), file_size_(file_size), page_size_(page_size), mlock_(mlock) {}
  [[nodiscard]] Error check_range(size_t offset, size_t size) const;

  int fd_ = -1;
  size_t file_size_ = 0;
  size_t page_size_ = 4096;
  Mlock mlock_ = Mlock::None;
};

}  // namespace etr
