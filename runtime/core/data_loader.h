// DataLoader: where program bytes come from (a file, flash, a buffer).
#pragma once

#include <cstddef>

#include "runtime/core/freeable_buffer.h"
#include "runtime/core/result.h"

namespace etr {

// What a load is for; loaders may use it to pick memory (e.g. keep delegate
// blobs in a special region).
enum class SegmentKind : uint8_t { Program, Constant, Backend, Mutable, External };

class DataLoader {
 public:
  virtual ~DataLoader() = default;

  // Bytes [offset, offset+size) of the source. Fails with InvalidArgument if
  // the range is outside the source, AccessFailed on I/O errors.
  [[nodiscard]] virtual Result<FreeableBuffer> load(size_t offset, size_t size,
                                                    SegmentKind kind) = 0;

  // Copies bytes [offset, offset+size) into `dst` (size bytes).
  [[nodiscard]] virtual Error load_into(size_t offset, size_t size, SegmentKind kind, void* dst);

  // Total size of the source in bytes.
  [[nodiscard]] virtual Result<size_t> size() const = 0;
};

}  // namespace etr
