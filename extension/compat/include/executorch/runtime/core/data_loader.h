// Compatibility layer (extension/compat): the official DataLoader interface.
// Program::load and FlatTensorDataMap::load take any implementation (a
// user's own included); the loaders of extension/data_loader wrap etr's.
#pragma once

#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>

namespace etr {
class DataLoader;
}  // namespace etr

namespace executorch {
namespace runtime {

class DataLoader {
 public:
  // What a load is for (loaders may place segments differently).
  struct SegmentInfo {
    enum class Type {
      Program,
      Constant,
      Backend,
      Mutable,
      External,
    };
    Type segment_type;
    // Index of the segment (for Backend: the delegate's index).
    size_t segment_index;
    // Backend: the backend id; External: the key or file; else null.
    const char* descriptor;

    SegmentInfo() = default;
    explicit SegmentInfo(Type segment_type_, size_t segment_index_ = 0,
                         const char* descriptor_ = nullptr)
        : segment_type(segment_type_), segment_index(segment_index_), descriptor(descriptor_) {}
  };

  virtual ~DataLoader() = default;

  // Bytes [offset, offset + size) of the source.
  ET_NODISCARD virtual Result<FreeableBuffer> load(size_t offset, size_t size,
                                                   const SegmentInfo& segment_info) const = 0;

  // Copies bytes [offset, offset + size) into `buffer`.
  ET_NODISCARD virtual Error load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                       void* buffer) const {
    (void)offset, (void)size, (void)segment_info, (void)buffer;
    ET_LOG(Error, "load_into() not implemented for this data loader.");
    return Error::NotImplemented;
  }

  // Size of the source in bytes.
  ET_NODISCARD virtual Result<size_t> size() const = 0;

  // Internal (extension/compat): the etr loader behind this one, when it
  // wraps one (then the runtime reads through it directly); null for other
  // loaders, which the runtime reads through load() and load_into().
  virtual ::etr::DataLoader* etr_loader() const { return nullptr; }
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::DataLoader;
}  // namespace executor
}  // namespace torch
