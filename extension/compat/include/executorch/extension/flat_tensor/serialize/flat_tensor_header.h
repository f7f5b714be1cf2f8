// Compatibility layer (extension/compat): the FH01 header of a .ptd file
// (at byte 8): where the flatbuffer and the segment data are.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/result.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace executorch {
namespace extension {

struct FlatTensorHeader {
  // Bytes of the file Parse() needs.
  static constexpr size_t kNumHeadBytes = 64;
  static constexpr size_t kHeaderOffset = 8;
  static constexpr size_t kMagicSize = 4;
  static constexpr char kMagic[kMagicSize] = {'F', 'H', '0', '1'};
  // Magic, length and the four 64-bit fields.
  static constexpr uint32_t kHeaderExpectedLength = 4 + 4 + 8 + 8 + 8 + 8;

  // Reads the header from the first `size` bytes of a file: InvalidArgument
  // when fewer than kNumHeadBytes or the recorded length is too small,
  // NotFound when the magic is absent.
  static runtime::Result<FlatTensorHeader> Parse(const void* data, size_t size) {
    if (data == nullptr || size < kNumHeadBytes) return runtime::Error::InvalidArgument;
    const uint8_t* h = static_cast<const uint8_t*>(data) + kHeaderOffset;
    if (std::memcmp(h, kMagic, kMagicSize) != 0) return runtime::Error::NotFound;
    if (read_le<uint32_t>(h + 4) < kHeaderExpectedLength) return runtime::Error::InvalidArgument;
    FlatTensorHeader out;
    out.flatbuffer_offset = read_le<uint64_t>(h + 8);
    out.flatbuffer_size = read_le<uint64_t>(h + 16);
    out.segment_base_offset = read_le<uint64_t>(h + 24);
    out.segment_data_size = read_le<uint64_t>(h + 32);
    return out;
  }

  uint64_t flatbuffer_offset;
  uint64_t flatbuffer_size;
  uint64_t segment_base_offset;
  uint64_t segment_data_size;

 private:
  template <typename T>
  static T read_le(const uint8_t* p) {
    T v = 0;
    for (size_t i = sizeof(T); i-- > 0;) v = static_cast<T>((v << 8) | p[i]);
    return v;
  }
};

}  // namespace extension
}  // namespace executorch
