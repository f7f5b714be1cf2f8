#include "extension/data_loader/file_data_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "extension/data_loader/posix_read.h"
#include "runtime/core/checked_math.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace {

void free_platform_buffer(void* context, const void* data, size_t size) {
  (void)data;
  (void)size;
  platform_deallocate(context);
}

}  // namespace

Result<FileDataLoader> FileDataLoader::from(const char* path, size_t alignment) {
  if (path == nullptr) ETR_FAIL(Error::InvalidArgument, "file loader: null path");
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    ETR_FAIL(Error::InvalidArgument, "file loader: alignment %zu is not a power of two", alignment);
  }
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ETR_FAIL(Error::AccessFailed, "cannot open '%s': %s", path, std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    ETR_FAIL(Error::AccessFailed, "'%s' is not a regular file", path);
  }
  return FileDataLoader(fd, static_cast<size_t>(st.st_size), alignment);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : fd_(other.fd_), file_size_(other.file_size_), alignment_(other.alignment_) {
  other.fd_ = -1;
}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Error FileDataLoader::read_exact(size_t offset, size_t size, void* dst) const {
  if (!range_within(offset, size, file_size_)) {
    ETR_FAIL(Error::InvalidArgument, "file loader: range [%zu, +%zu) is outside the %zu-byte file",
             offset, size, file_size_);
  }
  return internal::pread_exact(fd_, offset, size, dst, "file loader");
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size, SegmentKind kind) {
  (void)kind;
  if (!range_within(offset, size, file_size_)) {
    ETR_FAIL(Error::InvalidArgument, "file loader: range [%zu, +%zu) is outside the %zu-byte file",
             offset, size, file_size_);
  }
  if (size == 0) return FreeableBuffer(nullptr, 0);
  void* buf = platform_allocate(size, alignment_);
  if (buf == nullptr) {
    ETR_FAIL(Error::MemoryAllocationFailed, "file loader: cannot allocate %zu bytes", size);
  }
  const Error err = read_exact(offset, size, buf);
  if (err != Error::Ok) {
    platform_deallocate(buf);
    return err;
  }
  return FreeableBuffer(buf, size, free_platform_buffer, buf);
}

Error FileDataLoader::load_into(size_t offset, size_t size, SegmentKind kind, void* dst) {
  (void)kind;
  return read_exact(offset, size, dst);
}

}  // namespace etr
