#include "extension/data_loader/mmap_data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "extension/data_loader/posix_read.h"
#include "runtime/core/checked_math.h"

namespace etr {
namespace {

// Unmaps the pages behind a buffer returned by load(): the mapping starts at
// the page holding `data` and ends with the page holding its last byte.
void unmap_pages(void* context, const void* data, size_t size) {
  const size_t page = reinterpret_cast<uintptr_t>(context);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t base = begin & ~(uintptr_t{page} - 1);
  ::munmap(reinterpret_cast<void*>(base), static_cast<size_t>(begin - base) + size);
}

}  // namespace

Result<MmapDataLoader> MmapDataLoader::from(const char* path, Mlock mlock) {
  if (path == nullptr) ETR_FAIL(Error::InvalidArgument, "mmap loader: null path");
  const long page = ::sysconf(_SC_PAGESIZE);
  if (page <= 0 || (page & (page - 1)) != 0) {
    ETR_FAIL(Error::Internal, "mmap loader: unusable page size %ld", page);
  }
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) ETR_FAIL(Error::AccessFailed, "cannot open '%s': %s", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
    ::close(fd);
    ETR_FAIL(Error::AccessFailed, "'%s' is not a regular file", path);
  }
  return MmapDataLoader(fd, static_cast<size_t>(st.st_size), static_cast<size_t>(page), mlock);
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& other) noexcept
    : fd_(other.fd_),
      file_size_(other.file_size_),
      page_size_(other.page_size_),
      mlock_(other.mlock_) {
  other.fd_ = -1;
}

MmapDataLoader::~MmapDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Error MmapDataLoader::check_range(size_t offset, size_t size) const {
  if (!range_within(offset, size, file_size_)) {
    ETR_FAIL(Error::InvalidArgument, "mmap loader: range [%zu, +%zu) is outside the %zu-byte file",
             offset, size, file_size_);
  }
  return Error::Ok;
}

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size, SegmentKind kind) {
  (void)kind;
  ETR_RETURN_IF_ERROR(check_range(offset, size));
  if (size == 0) return FreeableBuffer(nullptr, 0);
  // Map from the page holding `offset`; offset + size <= file size, so the
  // length cannot overflow.
  const size_t skip = offset & (page_size_ - 1);
  const size_t map_offset = offset - skip;
  const size_t map_size = skip + size;
  // Private (copy-on-write) and writable, like the memory of the other
  // loaders: the runtime never writes program data, but should a hostile
  // program get a delegate to write into a constant, the write lands in a
  // private page instead of faulting (and never reaches the file).
  void* base = ::mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_,
                      static_cast<off_t>(map_offset));
  if (base == MAP_FAILED) {
    ETR_FAIL(Error::AccessFailed, "mmap loader: mapping %zu bytes at offset %zu failed: %s",
             map_size, map_offset, std::strerror(errno));
  }
  if (mlock_ != Mlock::None && ::mlock(base, map_size) != 0) {
    const int why = errno;
    if (mlock_ == Mlock::Lock) {
      ::munmap(base, map_size);
      ETR_FAIL(Error::AccessFailed, "mmap loader: mlock of %zu bytes failed: %s", map_size,
               std::strerror(why));
    }
    ETR_LOG(Info, "mmap loader: mlock of %zu bytes failed (ignored): %s", map_size,
            std::strerror(why));
  }
  void* page_context = reinterpret_cast<void*>(static_cast<uintptr_t>(page_size_));
  return FreeableBuffer(static_cast<const uint8_t*>(base) + skip, size, unmap_pages, page_context);
}

Error MmapDataLoader::load_into(size_t offset, size_t size, SegmentKind kind, void* dst) {
  (void)kind;
  ETR_RETURN_IF_ERROR(check_range(offset, size));
  return internal::pread_exact(fd_, offset, size, dst, "mmap loader");
}

}  // namespace etr
