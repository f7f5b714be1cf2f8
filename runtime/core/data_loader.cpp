#include "runtime/core/data_loader.h"

#include <cstring>

namespace etr {

Error DataLoader::load_into(size_t offset, size_t size, SegmentKind kind, void* dst) {
  Result<FreeableBuffer> buf = load(offset, size, kind);
  if (!buf.ok()) return buf.error();
  if (size != 0) std::memcpy(dst, buf->data(), size);
  return Error::Ok;
}

}  // namespace etr
