// Compatibility layer (extension/compat): the official runtime-internal
// PteDataMap (a program's named data as a NamedDataMap, built from the
// program's flatbuffers tables). etr serves a program's named data to its
// methods itself (and Program::get_named_data_map() gives it to callers), so
// create() returns Error::NotSupported (logged); the declaration is here so
// code naming the type compiles.
#pragma once

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>

namespace executorch_flatbuffer {
struct NamedData;
struct DataSegment;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {
namespace internal {

class PteDataMap final : public NamedDataMap {
 public:
  // `named_data` and `segments` are the program's flatbuffers vectors of
  // executorch_flatbuffer::NamedData and ::DataSegment offsets (the official
  // header's FlatbufferNamedData and FlatbufferDataSegment). A template, so
  // that this header names no type of a particular flatbuffers release: the
  // generated schema header (executorch/schema/program_generated.h) and the
  // flatbuffers headers it was made with can be included beside it.
  template <typename NamedDataVector, typename DataSegmentVector>
  static Result<PteDataMap> create(DataLoader* loader, size_t segment_base_offset,
                                   const NamedDataVector* named_data,
                                   const DataSegmentVector* segments) {
    (void)loader;
    (void)segment_base_offset;
    (void)named_data;
    (void)segments;
    return create_unsupported();
  }

  ET_NODISCARD Result<const TensorLayout> get_tensor_layout(std::string_view) const override {
    return Error::NotImplemented;
  }
  ET_NODISCARD Result<FreeableBuffer> get_data(std::string_view) const override {
    return Error::NotSupported;
  }
  ET_NODISCARD Error load_data_into(std::string_view, void*, size_t) const override {
    return Error::NotImplemented;
  }
  ET_NODISCARD Result<uint32_t> get_num_keys() const override { return Error::NotSupported; }
  ET_NODISCARD Result<const char*> get_key(uint32_t) const override { return Error::NotSupported; }

  PteDataMap(PteDataMap&&) noexcept = default;
  ~PteDataMap() override = default;

 private:
  // Logs why create() is not supported and returns NotSupported.
  static Result<PteDataMap> create_unsupported();

  PteDataMap() = default;
  PteDataMap(const PteDataMap&) = delete;
  PteDataMap& operator=(PteDataMap&&) noexcept = delete;
  PteDataMap& operator=(const PteDataMap&) = delete;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
