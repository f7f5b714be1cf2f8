// Compatibility layer (extension/compat): the small OS helpers the official
// mmap loader uses (page size, file size, offsets, read-ahead advice), for
// POSIX systems.
#pragma once

#include <executorch/runtime/platform/compiler.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

ET_INLINE size_t get_os_page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// The size of the open file `fd` into *out_size; returns fstat's result.
ET_INLINE int get_file_stat(int fd, size_t* out_size) {
  struct stat st;
  const int err = ::fstat(fd, &st);
  if (err >= 0) *out_size = static_cast<size_t>(st.st_size);
  return err;
}

ET_INLINE off_t get_mmap_offset(size_t offset) { return static_cast<off_t>(offset); }

// Tells the kernel the pages will be read soon, in order.
ET_INLINE void madvise_pages_willneed_sequential(void* addr, size_t len) {
#ifdef MADV_WILLNEED
  ::madvise(addr, len, MADV_WILLNEED);
#endif
#ifdef MADV_SEQUENTIAL
  ::madvise(addr, len, MADV_SEQUENTIAL);
#endif
}

// Read-ahead advice on Apple systems; nothing elsewhere.
ET_INLINE void fcntl_rdadvise_apple(int fd, size_t file_size) {
  (void)fd;
  (void)file_size;
}
