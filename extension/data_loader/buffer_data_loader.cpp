#include "extension/data_loader/buffer_data_loader.h"

#include "runtime/core/checked_math.h"

namespace etr {

Result<FreeableBuffer> BufferDataLoader::load(size_t offset, size_t size, SegmentKind kind) {
  (void)kind;
  if (!range_within(offset, size, size_)) {
    ETR_FAIL(Error::InvalidArgument,
             "buffer loader: range [%zu, +%zu) is outside the %zu-byte buffer", offset, size,
             size_);
  }
  return FreeableBuffer(static_cast<const uint8_t*>(data_) + offset, size);
}

}  // namespace etr
