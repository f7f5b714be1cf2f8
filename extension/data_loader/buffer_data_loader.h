// DataLoader over bytes already in memory (flash, an embedded array, a mapped file).
#pragma once

#include <cstddef>

#include "runtime/core/data_loader.h"

namespace etr {

class BufferDataLoader final : public DataLoader {
 public:
  // Does not take ownership; `data` must outlive the loader and every Program
  // loaded from it. Loads return views into it (no copy).
  BufferDataLoader(const void* data, size_t size) : data_(data), size_(size) {}

  Result<FreeableBuffer> load(size_t offset, size_t size, SegmentKind kind) override;
  Result<size_t> size() const override { return size_; }

 private:
  const void* data_;
  size_t size_;
};

}  // namespace etr
