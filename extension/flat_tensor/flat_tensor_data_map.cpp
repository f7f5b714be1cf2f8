#include "extension/flat_tensor/flat_tensor_data_map.h"

#include <cstring>
#include <utility>

#include "runtime/core/byte_order.h"
#include "runtime/core/checked_math.h"
#include "runtime/core/scalar_type.h"
#include "schema/flat_tensor_generated.h"

namespace etr {
namespace {

// Verifier bounds: ample for real files, bounded for hostile ones.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 24;
// The widest scalar in the schema is 8 bytes; the flatbuffer region must sit
// at an address aligned for it (offsets inside are aligned relative to byte 0).
constexpr size_t kRegionAlignment = 8;
// dim_order entries are bytes, so a permutation has at most 256 entries.
constexpr size_t kMaxPermutationRank = 256;

unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

}  // namespace

Result<FlatTensorHeader> FlatTensorHeader::parse(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (p == nullptr || size < kFileBytes) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: file is %zu bytes; the flatbuffer prefix and the FH01 header need %zu", size,
             kFileBytes);
  }
  if (std::memcmp(p + 8, "FH01", 4) != 0) {
    ETR_FAIL(Error::InvalidExternalData, "ptd: no 'FH01' header magic at offset 8");
  }
  FlatTensorHeader h;
  h.length = read_le_u32(p + 12);
  if (h.length < kMinLength) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: FH01 header length %u at offset 12 is below the minimum %u", h.length,
             kMinLength);
  }
  h.flatbuffer_offset = read_le_u64(p + 16);
  h.flatbuffer_size = read_le_u64(p + 24);
  h.segment_base_offset = read_le_u64(p + 32);
  h.segment_data_size = read_le_u64(p + 40);
  return h;
}

Result<FlatTensorDataMap> FlatTensorDataMap::load(DataLoader* loader) {
  if (loader == nullptr) ETR_FAIL(Error::InvalidArgument, "FlatTensorDataMap::load: null loader");
  ETR_ASSIGN_OR_RETURN(const size_t file_size, loader->size());
  if (file_size < FlatTensorHeader::kFileBytes) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: file is %zu bytes; the flatbuffer prefix and the FH01 header need %zu",
             file_size, FlatTensorHeader::kFileBytes);
  }
  FlatTensorHeader header;
  {
    ETR_ASSIGN_OR_RETURN(FreeableBuffer head,
                         loader->load(0, FlatTensorHeader::kFileBytes, SegmentKind::External));
    const uint8_t* h = static_cast<const uint8_t*>(head.data());
    if (h == nullptr || head.size() < FlatTensorHeader::kFileBytes) {
      ETR_FAIL(Error::AccessFailed, "ptd: the loader returned %zu of the %zu header bytes",
               head.size(), FlatTensorHeader::kFileBytes);
    }
    if (std::memcmp(h + 4, "FT01", 4) != 0) {
      ETR_FAIL(Error::InvalidExternalData,
               "ptd: not a FlatTensor file: no 'FT01' identifier at offset 4");
    }
    ETR_ASSIGN_OR_RETURN(header, FlatTensorHeader::parse(h, head.size()));
  }

  // The flatbuffer region is [0, flatbuffer_offset + flatbuffer_size): the
  // header block sits inside it, right after the 8-byte prefix.
  uint64_t region = 0;
  if (header.flatbuffer_offset < header.length ||
      __builtin_add_overflow(header.flatbuffer_offset, header.flatbuffer_size, &region) ||
      region < FlatTensorHeader::kFileBytes || region > file_size) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: FH01 header: flatbuffer region (block %llu + flatbuffer %llu bytes) does not "
             "fit the %zu-byte file",
             ull(header.flatbuffer_offset), ull(header.flatbuffer_size), file_size);
  }
  if (!range_within(header.segment_base_offset, header.segment_data_size, file_size)) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: FH01 header: segment data [%llu, +%llu) does not fit the %zu-byte file",
             ull(header.segment_base_offset), ull(header.segment_data_size), file_size);
  }

  const size_t region_size = static_cast<size_t>(region);  // <= file_size
  ETR_ASSIGN_OR_RETURN(FreeableBuffer flatbuffer,
                       loader->load(0, region_size, SegmentKind::External));
  const uint8_t* data = static_cast<const uint8_t*>(flatbuffer.data());
  if (data == nullptr || flatbuffer.size() < region_size) {
    ETR_FAIL(Error::AccessFailed, "ptd: the loader returned %zu of the %zu flatbuffer bytes",
             flatbuffer.size(), region_size);
  }
  if (reinterpret_cast<uintptr_t>(data) % kRegionAlignment != 0) {
    ETR_FAIL(Error::InvalidArgument, "ptd: flatbuffer bytes at %p are not %zu-byte aligned",
             static_cast<const void*>(data), kRegionAlignment);
  }
  const uint32_t root = read_le_u32(data);
  if (root < FlatTensorHeader::kFileBytes || root >= region_size) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: root table offset %u is outside the %zu-byte flatbuffer region", root,
             region_size);
  }
  flatbuffers::Verifier verifier(data, region_size, kMaxDepth, kMaxTables);
  if (!etr_ft::VerifyFlatTensorBuffer(verifier)) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: FlatTensor flatbuffer failed structural verification (%zu bytes)", region_size);
  }

  FlatTensorDataMap map(loader, header, std::move(flatbuffer));
  map.root_ = etr_ft::GetFlatTensor(data);
  ETR_RETURN_IF_ERROR(map.check_entries());
  return map;
}

Error FlatTensorDataMap::check_entries() const {
  const auto* segments = root_->segments();
  const auto* named = root_->named_data();
  if (segments == nullptr) ETR_FAIL(Error::InvalidExternalData, "ptd: FlatTensor has no segments");
  if (named == nullptr) ETR_FAIL(Error::InvalidExternalData, "ptd: FlatTensor has no named_data");
  for (flatbuffers::uoffset_t i = 0; i < named->size(); ++i) {
    const etr_ft::NamedData* nd = named->Get(i);
    if (nd == nullptr || nd->key() == nullptr) {
      ETR_FAIL(Error::InvalidExternalData, "ptd: named_data[%u] has no key", i);
    }
    const char* key = nd->key()->c_str();
    const uint32_t index = nd->segment_index();
    if (index >= segments->size()) {
      ETR_FAIL(Error::InvalidExternalData,
               "ptd: named_data[%u] key '%s': segment_index %u is out of range (%u segments)", i,
               key, index, segments->size());
    }
    const etr_ft::DataSegment* s = segments->Get(index);
    if (s == nullptr) {
      ETR_FAIL(Error::InvalidExternalData, "ptd: named_data[%u] key '%s': segments[%u] is null", i,
               key, index);
    }
    if (!range_within(s->offset(), s->size(), header_.segment_data_size)) {
      ETR_FAIL(Error::InvalidExternalData,
               "ptd: named_data[%u] key '%s': segments[%u] [offset %llu, +%llu) lies outside the "
               "%llu bytes of segment data",
               i, key, index, ull(s->offset()), ull(s->size()), ull(header_.segment_data_size));
    }
  }
  return Error::Ok;
}

const etr_ft::NamedData* FlatTensorDataMap::find(StringView key) const {
  const auto* named = root_->named_data();
  for (flatbuffers::uoffset_t i = 0; i < named->size(); ++i) {
    const etr_ft::NamedData* nd = named->Get(i);
    if (StringView(nd->key()->c_str(), nd->key()->size()) == key) return nd;
  }
  return nullptr;
}

Result<FreeableBuffer> FlatTensorDataMap::get_data(StringView key) const {
  // A missing key is an ordinary answer (maps are searched in turn): no message.
  const etr_ft::NamedData* nd = find(key);
  if (nd == nullptr) return Error::NotFound;
  const etr_ft::DataSegment* s = root_->segments()->Get(nd->segment_index());
  if (s->size() == 0) return FreeableBuffer(nullptr, 0);
  // load() checked base + offset + size <= base + segment_data_size <= file size.
  const uint64_t start = header_.segment_base_offset + s->offset();
  if (start > SIZE_MAX || s->size() > SIZE_MAX) {
    ETR_FAIL(Error::NotSupported,
             "ptd: key '%s': segment %u does not fit this platform's address space",
             nd->key()->c_str(), nd->segment_index());
  }
  Result<FreeableBuffer> bytes = loader_->load(
      static_cast<size_t>(start), static_cast<size_t>(s->size()), SegmentKind::External);
  if (!bytes.ok()) {
    ETR_FAIL(bytes.error(), "ptd: key '%s': cannot load segment %u [%llu, +%llu)",
             nd->key()->c_str(), nd->segment_index(), ull(start), ull(s->size()));
  }
  return bytes;
}

Result<TensorLayout> FlatTensorDataMap::get_layout(StringView key) const {
  const etr_ft::NamedData* nd = find(key);
  if (nd == nullptr || nd->tensor_layout() == nullptr) return Error::NotFound;
  const char* name = nd->key()->c_str();
  const etr_ft::TensorLayout* layout = nd->tensor_layout();
  const int code = static_cast<int>(layout->scalar_type());
  const ScalarType dtype = static_cast<ScalarType>(layout->scalar_type());
  if (!is_valid(dtype)) {
    ETR_FAIL(Error::InvalidExternalData, "ptd: key '%s': tensor_layout has unknown scalar_type %d",
             name, code);
  }
  // An absent vector reads as empty (a 0-d tensor).
  const auto* sizes = layout->sizes();
  const auto* order = layout->dim_order();
  const size_t rank = sizes == nullptr ? 0 : sizes->size();
  const size_t order_len = order == nullptr ? 0 : order->size();
  if (order_len != rank) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: key '%s': tensor_layout has %zu dim_order entries for %zu sizes", name,
             order_len, rank);
  }
  if (rank > kMaxPermutationRank) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: key '%s': tensor_layout rank %zu cannot have a byte dim_order", name, rank);
  }
  size_t nbytes = element_size(dtype);
  bool seen[kMaxPermutationRank] = {};
  for (flatbuffers::uoffset_t d = 0; d < rank; ++d) {
    const int32_t size = sizes->Get(d);
    if (size < 0) {
      ETR_FAIL(Error::InvalidExternalData, "ptd: key '%s': tensor_layout sizes[%u] is %d", name, d,
               size);
    }
    if (!checked_mul(nbytes, static_cast<size_t>(size), &nbytes)) {
      ETR_FAIL(Error::InvalidExternalData, "ptd: key '%s': tensor_layout byte size overflows",
               name);
    }
    const uint8_t dim = order->Get(d);
    if (dim >= rank || seen[dim]) {
      ETR_FAIL(Error::InvalidExternalData,
               "ptd: key '%s': tensor_layout dim_order is not a permutation of 0..%zu "
               "(entry %u is %u)",
               name, rank - 1, d, static_cast<unsigned>(dim));
    }
    seen[dim] = true;
  }
  const etr_ft::DataSegment* s = root_->segments()->Get(nd->segment_index());
  if (nbytes > s->size()) {
    ETR_FAIL(Error::InvalidExternalData,
             "ptd: key '%s': tensor_layout needs %zu bytes but segment %u holds %llu", name, nbytes,
             nd->segment_index(), ull(s->size()));
  }
  TensorLayout out;
  out.dtype = dtype;
  out.sizes = Span<const int32_t>(rank == 0 ? nullptr : sizes->data(), rank);
  out.dim_order = Span<const uint8_t>(rank == 0 ? nullptr : order->data(), rank);
  return out;
}

size_t FlatTensorDataMap::num_keys() const { return root_->named_data()->size(); }

Result<const char*> FlatTensorDataMap::key_at(size_t index) const {
  if (index >= num_keys()) {
    ETR_FAIL(Error::InvalidArgument, "ptd: key index %zu is out of range (%zu keys)", index,
             num_keys());
  }
  return root_->named_data()->Get(static_cast<flatbuffers::uoffset_t>(index))->key()->c_str();
}

}  // namespace etr
