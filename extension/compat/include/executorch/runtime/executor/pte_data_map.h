// Compatibility layer (extension/compat): the official runtime-internal
// PteDataMap (a program's named data as a NamedDataMap, built from the
// program's flatbuffers tables). etr parses programs without the flatbuffers
// library and serves a program's named data to its methods itself, so
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

namespace flatbuffers {
template <typename T>
struct Offset;
template <typename T, typename SizeT>
class Vector;
using FlatbufferNamedData =
    flatbuffers::Vector<flatbuffers::Offset<executorch_flatbuffer::NamedData>, uint32_t>;
using FlatbufferDataSegment =
    flatbuffers::Vector<flatbuffers::Offset<executorch_flatbuffer::DataSegment>, uint32_t>;
}  // namespace flatbuffers

namespace executorch {
namespace runtime {
namespace internal {

class PteDataMap final : public NamedDataMap {
 public:
  static Result<PteDataMap> create(DataLoader* loader, size_t segment_base_offset,
                                   const flatbuffers::FlatbufferNamedData* named_data,
                                   const flatbuffers::FlatbufferDataSegment* segments);

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
  PteDataMap() = default;
  PteDataMap(const PteDataMap&) = delete;
  PteDataMap& operator=(PteDataMap&&) noexcept = delete;
  PteDataMap& operator=(const PteDataMap&) = delete;
};

}  // namespace internal
}  // namespace runtime
}  // namespace executorch
