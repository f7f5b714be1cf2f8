// libFuzzer harness for MmapDataLoader: the input is written to an in-memory
// file (memfd) and driven through the whole runtime with the mmap loader, so
// every offset and size the program names reaches mmap/munmap/pread.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "extension/data_loader/mmap_data_loader.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "test/support/exercise.h"
#include "test/support/in_process.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool registered = [] {
    etr::testing::register_all_kernels();
    return true;
  }();
  (void)registered;
  const int fd = memfd_create("pte", 0);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (done == size) {
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    etr::Result<etr::MmapDataLoader> loader = etr::MmapDataLoader::from(path.c_str());
    if (loader.ok()) {
      etr::testing::ExerciseStats stats;
      etr::testing::exercise_loader(&*loader, &stats);
    }
  }
  close(fd);
  return 0;
}
