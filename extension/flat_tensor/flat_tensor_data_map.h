// FlatTensorDataMap: a .ptd external data file (FlatTensor, identifier "FT01")
// seen as a NamedDataMap, for MethodLoadOptions::external_data.
//
//   auto loader = etr::FileDataLoader::from("weights.ptd");
//   auto ptd = etr::FlatTensorDataMap::load(&*loader);
//   const etr::NamedDataMap* maps[] = {&*ptd};
//   options.external_data = maps;
//
// load() reads the FH01 header and the flatbuffer region, verifies the
// flatbuffer and checks every index and byte range against the file; lookups
// then load one segment at a time through the loader. Does not take ownership
// of the loader, which must outlive the map and every buffer it returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "runtime/core/data_loader.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"

// The generated schema stays out of public headers.
namespace etr_ft {
struct FlatTensor;
struct NamedData;
}  // namespace etr_ft

namespace etr {

// The FH01 header found at byte 8 of a .ptd file.
struct FlatTensorHeader {
  // Smallest header_length accepted (bytes from the magic through segment_data_size).
  static constexpr uint32_t kMinLength = 40;
  // File bytes needed to read the header: the 8-byte flatbuffer prefix plus kMinLength.
  static constexpr size_t kFileBytes = 8 + kMinLength;

  uint32_t length = 0;
  // Length of the block inserted after byte 8 (header plus padding).
  uint64_t flatbuffer_offset = 0;
  // Size of the flatbuffer before the block was inserted.
  uint64_t flatbuffer_size = 0;
  // Absolute file offset of segment data, and its length.
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;

  // Parses the first `size` bytes of a file. InvalidExternalData when the
  // bytes are too short, the magic is not "FH01" or the length is below kMinLength.
  [[nodiscard]] static Result<FlatTensorHeader> parse(const void* data, size_t size);
};

class FlatTensorDataMap final : public NamedDataMap {
 public:
  // Loads and checks the file behind `loader`. InvalidArgument for a null
  // loader; InvalidExternalData (with a logged message naming the problem
  // and the key or index) for anything malformed; the loader's error when a
  // read fails.
  [[nodiscard]] static Result<FlatTensorDataMap> load(DataLoader* loader);

  FlatTensorDataMap(FlatTensorDataMap&&) noexcept = default;
  FlatTensorDataMap(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(FlatTensorDataMap&&) = delete;
  ~FlatTensorDataMap() override = default;

  // The whole segment stored under `key`, loaded through the loader
  // (SegmentKind::External); NotFound when no entry has the key.
  Result<FreeableBuffer> get_data(StringView key) const override;
  // The layout stored under `key`; NotFound when absent or when the entry is an
  // opaque blob; InvalidExternalData when the recorded layout is malformed
  // (unknown dtype, negative size, dim_order not a permutation of the dims).
  // The spans point into the map and live as long as it.
  Result<TensorLayout> get_layout(StringView key) const override;
  size_t num_keys() const override;
  Result<const char*> key_at(size_t index) const override;

  const FlatTensorHeader& header() const { return header_; }

 private:
  FlatTensorDataMap(DataLoader* loader, const FlatTensorHeader& header, FreeableBuffer flatbuffer)
      : loader_(loader), header_(header), flatbuffer_(std::move(flatbuffer)) {}
  [[nodiscard]] Error check_entries() const;
  const etr_ft::NamedData* find(StringView key) const;

  DataLoader* loader_ = nullptr;
  FlatTensorHeader header_;
  FreeableBuffer flatbuffer_;
  const etr_ft::FlatTensor* root_ = nullptr;
};

}  // namespace etr
