#include "extension/data_loader/posix_read.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace etr {
namespace internal {

Error pread_exact(int fd, size_t offset, size_t size, void* dst, const char* who) {
  uint8_t* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ETR_FAIL(Error::AccessFailed, "%s: read of %zu bytes at offset %zu failed", who, size,
               offset);
    }
    done += static_cast<size_t>(n);
  }
  return Error::Ok;
}

}  // namespace internal
}  // namespace etr
