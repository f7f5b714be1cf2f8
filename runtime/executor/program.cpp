#include "runtime/executor/program.h"

#include <cinttypes>
#include <cstring>
#include <utility>

#include "runtime/core/byte_order.h"
#include "runtime/core/checked_math.h"
#include "runtime/executor/flatbuffer_util.h"
#include "schema/program_generated.h"

namespace etr {

Program::Program(Program&& other) noexcept
    : loader_(other.loader_),
      program_data_(std::move(other.program_data_)),
      constant_segment_(std::move(other.constant_segment_)),
      program_(other.program_),
      header_(other.header_),
      legacy_constants_(other.legacy_constants_) {
  named_data_.program = this;
}
namespace {

constexpr size_t kHeaderProbeSize = 64;
constexpr size_t kMinHeaderLength = 24;
// Upper bounds for the verifier; generous for large models, bounded for hostile ones.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 26;

}  // namespace

Result<ExtendedHeader> ExtendedHeader::parse(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (size < 16 || std::memcmp(p + 8, "eh00", 4) != 0) return Error::NotFound;
  ExtendedHeader h;
  h.length = read_le_u32(p + 12);
  if (h.length < kMinHeaderLength) {
    ETR_FAIL(Error::InvalidProgram,
             "extended header at offset 8: length %" PRIu32 " is below the minimum %zu", h.length,
             kMinHeaderLength);
  }
  if (size < 8 + kMinHeaderLength) {
    ETR_FAIL(Error::InvalidProgram, "extended header at offset 8: file ends after %zu bytes", size);
  }
  h.program_size = read_le_u64(p + 16);
  h.segment_base_offset = read_le_u64(p + 24);
  if (h.length >= 32 && size >= 8 + 32) h.segment_data_size = read_le_u64(p + 32);
  return h;
}

// Reads the first bytes: the identifier and the optional extended header.
Error Program::probe_header(size_t file_size) {
  const size_t probe = file_size < kHeaderProbeSize ? file_size : kHeaderProbeSize;
  ETR_ASSIGN_OR_RETURN(FreeableBuffer head, loader_->load(0, probe, SegmentKind::Program));
  const uint8_t* h = static_cast<const uint8_t*>(head.data());
  if (std::memcmp(h + 4, "ET12", 4) != 0) {
    if (h[4] == 'E' && h[5] == 'T') {
      ETR_FAIL(Error::NotSupported,
               "program identifier '%.4s' at offset 4 is an unsupported version (expected 'ET12')",
               reinterpret_cast<const char*>(h + 4));
    }
    ETR_FAIL(Error::InvalidProgram, "not an ExecuTorch program: no 'ET12' identifier at offset 4");
  }
  Result<ExtendedHeader> header = ExtendedHeader::parse(h, probe);
  if (header.ok()) {
    header_ = *header;
  } else if (header.error() != Error::NotFound) {
    return header.error();
  }
  return Error::Ok;
}

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  if (loader == nullptr) ETR_FAIL(Error::InvalidArgument, "Program::load: null data loader");
  ETR_ASSIGN_OR_RETURN(const size_t file_size, loader->size());
  if (file_size < 8) {
    ETR_FAIL(Error::InvalidProgram, "program is %zu bytes; at least 8 are needed", file_size);
  }
  Program program;
  program.loader_ = loader;
  ETR_RETURN_IF_ERROR(program.probe_header(file_size));
  size_t program_size = file_size;
  if (program.has_extended_header()) {
    const ExtendedHeader& eh = program.header_;
    if (eh.program_size < 8 + kMinHeaderLength || eh.program_size > file_size) {
      ETR_FAIL(Error::InvalidProgram,
               "extended header: program_size %llu is outside the %zu-byte file",
               static_cast<unsigned long long>(eh.program_size), file_size);
    }
    program_size = static_cast<size_t>(eh.program_size);
    if (eh.segment_base_offset != 0 &&
        (eh.segment_base_offset < eh.program_size || eh.segment_base_offset > file_size ||
         !range_within(eh.segment_base_offset, eh.segment_data_size, file_size))) {
      ETR_FAIL(Error::InvalidProgram,
               "extended header: segment data [%llu, +%llu) does not fit the %zu-byte file "
               "after the %zu-byte program",
               static_cast<unsigned long long>(eh.segment_base_offset),
               static_cast<unsigned long long>(eh.segment_data_size), file_size, program_size);
    }
  }
  ETR_ASSIGN_OR_RETURN(program.program_data_, loader->load(0, program_size, SegmentKind::Program));
  const uint8_t* data = static_cast<const uint8_t*>(program.program_data_.data());
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {
    ETR_FAIL(Error::InvalidArgument, "program bytes at %p are not 16-byte aligned",
             static_cast<const void*>(data));
  }
  const uint32_t root = read_le_u32(data);
  if (root < 8 || root >= program_size) {
    ETR_FAIL(Error::InvalidProgram, "root table offset %" PRIu32 " is outside the %zu-byte program",
             root, program_size);
  }
  if (verification == Verification::Full) {
    flatbuffers::Verifier verifier(data, program_size, kMaxDepth, kMaxTables);
    if (!etr_fb::VerifyProgramBuffer(verifier)) {
      ETR_FAIL(Error::InvalidProgram,
               "program flatbuffer failed structural verification (%zu bytes)", program_size);
    }
  }
  // A program without an execution_plan table loads with no methods.
  program.program_ = etr_fb::GetProgram(data);
  ETR_RETURN_IF_ERROR(program.check_segments(file_size));
  ETR_RETURN_IF_ERROR(program.load_constants());
  return program;
}

Error Program::check_segments(size_t file_size) {
  const auto* segments = program_->segments();
  if (segments == nullptr) return Error::Ok;
  const uint64_t base = header_.segment_base_offset;
  const uint64_t limit =
      (header_.length >= 32 && base != 0) ? base + header_.segment_data_size : file_size;
  for (flatbuffers::uoffset_t i = 0; i < segments->size(); ++i) {
    const etr_fb::DataSegment* s = segments->Get(i);
    if (s == nullptr) ETR_FAIL(Error::InvalidProgram, "segments[%" PRIu32 "] is null", i);
    if (s->size() == 0) continue;
    if (base == 0) {
      ETR_FAIL(Error::InvalidProgram,
               "segments[%" PRIu32
               "] holds %llu bytes but the program has no segment base (no extended header)",
               i, static_cast<unsigned long long>(s->size()));
    }
    uint64_t start = 0;
    if (__builtin_add_overflow(base, s->offset(), &start) ||
        !range_within(start, s->size(), limit)) {
      ETR_FAIL(Error::InvalidProgram,
               "segments[%" PRIu32
               "] [offset %llu, +%llu) lies outside the segment data (ends at %llu)",
               i, static_cast<unsigned long long>(s->offset()),
               static_cast<unsigned long long>(s->size()), static_cast<unsigned long long>(limit));
    }
  }
  const auto* named = program_->named_data();
  const size_t num_segments = segments->size();
  if (named != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < named->size(); ++i) {
      const etr_fb::NamedData* nd = named->Get(i);
      if (nd == nullptr || nd->key() == nullptr || nd->segment_index() >= num_segments) {
        ETR_FAIL(Error::InvalidProgram,
                 "named_data[%" PRIu32 "]: missing key or segment index out of range", i);
      }
    }
  }
  return Error::Ok;
}

Error Program::load_constants() {
  const etr_fb::SubsegmentOffsets* cs = program_->constant_segment();
  if (cs != nullptr && !internal::vector_aligned(cs->offsets())) {
    ETR_FAIL(Error::InvalidProgram, "constant_segment.offsets is not 8-byte aligned");
  }
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 0) {
    if (cs->offsets()->size() == 1) return Error::Ok;  // only the placeholder: no constants
    if (program_->constant_buffer() != nullptr && program_->constant_buffer()->size() > 0) {
      ETR_FAIL(Error::InvalidProgram,
               "program has both a constant segment and a legacy constant_buffer");
    }
    const auto* segments = program_->segments();
    if (segments == nullptr || cs->segment_index() >= segments->size()) {
      ETR_FAIL(Error::InvalidProgram,
               "constant_segment.segment_index %" PRIu32 " is out of range (%" PRIu32 " segments)",
               cs->segment_index(), segments == nullptr ? 0u : segments->size());
    }
    ETR_ASSIGN_OR_RETURN(constant_segment_,
                         load_segment(cs->segment_index(), SegmentKind::Constant));
    return Error::Ok;
  }
  legacy_constants_ = true;
  return Error::Ok;
}

Result<FreeableBuffer> Program::load_segment(size_t index, SegmentKind kind) const {
  const auto* segments = program_->segments();
  if (segments == nullptr || index >= segments->size()) {
    ETR_FAIL(Error::InvalidProgram, "segment index %zu is out of range (%" PRIu32 " segments)",
             index, segments == nullptr ? 0u : segments->size());
  }
  const etr_fb::DataSegment* s = segments->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (s->size() == 0) return FreeableBuffer(nullptr, 0);
  // Bounds were checked against the source at load.
  const uint64_t start = header_.segment_base_offset + s->offset();
  if (start > SIZE_MAX || s->size() > SIZE_MAX) {
    ETR_FAIL(Error::NotSupported, "segment %zu does not fit this platform's address space", index);
  }
  return loader_->load(static_cast<size_t>(start), static_cast<size_t>(s->size()), kind);
}

Result<const void*> Program::constant_data(uint32_t index, size_t nbytes) const {
  if (legacy_constants_) {
    const auto* buffers = program_->constant_buffer();
    if (buffers == nullptr || index >= buffers->size()) {
      ETR_FAIL(Error::InvalidProgram,
               "constant index %" PRIu32 " is out of range (%" PRIu32 " legacy constant buffers)",
               index, buffers == nullptr ? 0u : buffers->size());
    }
    const etr_fb::Buffer* b = buffers->Get(index);
    if (b == nullptr || b->storage() == nullptr || b->storage()->size() < nbytes) {
      ETR_FAIL(Error::InvalidProgram,
               "constant_buffer[%" PRIu32 "] holds fewer than the %zu bytes needed", index, nbytes);
    }
    return static_cast<const void*>(b->storage()->data());
  }
  const etr_fb::SubsegmentOffsets* cs = program_->constant_segment();
  const auto* offsets = cs == nullptr ? nullptr : cs->offsets();
  if (offsets == nullptr || index >= offsets->size()) {
    ETR_FAIL(Error::InvalidProgram,
             "constant index %" PRIu32 " is out of range (%" PRIu32 " constant offsets)", index,
             offsets == nullptr ? 0u : offsets->size());
  }
  const uint64_t off = offsets->Get(index);
  if (!range_within(off, nbytes, constant_segment_.size())) {
    ETR_FAIL(Error::InvalidProgram,
             "constant %" PRIu32 " [offset %llu, +%zu) lies outside the %zu-byte constant segment",
             index, static_cast<unsigned long long>(off), nbytes, constant_segment_.size());
  }
  return static_cast<const void*>(static_cast<const uint8_t*>(constant_segment_.data()) + off);
}

size_t Program::num_methods() const {
  const auto* plans = program_->execution_plan();
  return plans == nullptr ? 0 : plans->size();
}

Result<const char*> Program::get_method_name(size_t index) const {
  if (index >= num_methods()) {
    ETR_FAIL(Error::InvalidArgument, "method index %zu is out of range (%zu methods)", index,
             num_methods());
  }
  const etr_fb::ExecutionPlan* plan =
      program_->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (plan == nullptr || plan->name() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "execution_plan[%zu] has no name", index);
  }
  return plan->name()->c_str();
}

Program Program::over_flatbuffer(DataLoader* loader, uint64_t segment_base_offset,
                                 const etr_fb::Program* program) {
  Program p;
  p.loader_ = loader;
  p.program_ = program;
  p.header_.segment_base_offset = segment_base_offset;
  return p;
}

Result<FreeableBuffer> Program::load_segment_at(size_t index, SegmentKind kind) const {
  if (loader_ == nullptr || header_.segment_base_offset == 0) {
    ETR_FAIL(Error::NotFound, "segment %zu: the program has no segment data", index);
  }
  const auto* segments = program_->segments();
  if (segments == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "segment %zu: the program has no segments table", index);
  }
  if (index >= segments->size()) {
    ETR_FAIL(Error::NotFound, "segment index %zu is out of range (%" PRIu32 " segments)", index,
             segments->size());
  }
  const etr_fb::DataSegment* s = segments->Get(static_cast<flatbuffers::uoffset_t>(index));
  uint64_t start = 0;
  if (s == nullptr || __builtin_add_overflow(header_.segment_base_offset, s->offset(), &start) ||
      start > SIZE_MAX || s->size() > SIZE_MAX) {
    ETR_FAIL(Error::InvalidProgram, "segments[%zu] is missing or its range overflows", index);
  }
  return loader_->load(static_cast<size_t>(start), static_cast<size_t>(s->size()), kind);
}

Result<size_t> Program::segment_index_at(size_t offset, size_t size) const {
  const auto* segments = program_ == nullptr ? nullptr : program_->segments();
  const uint64_t base = header_.segment_base_offset;
  if (segments == nullptr || base == 0 || size == 0 || offset < base) return Error::NotFound;
  for (flatbuffers::uoffset_t i = 0; i < segments->size(); ++i) {
    const etr_fb::DataSegment* s = segments->Get(i);
    if (s != nullptr && s->offset() == offset - base && s->size() == size) return size_t{i};
  }
  return Error::NotFound;
}

const char* Program::delegate_id_of_segment(size_t index) const {
  const auto* plans = program_ == nullptr ? nullptr : program_->execution_plan();
  for (flatbuffers::uoffset_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    const auto* delegates = plans->Get(p) == nullptr ? nullptr : plans->Get(p)->delegates();
    for (flatbuffers::uoffset_t d = 0; delegates != nullptr && d < delegates->size(); ++d) {
      const etr_fb::BackendDelegate* delegate = delegates->Get(d);
      const etr_fb::BackendDelegateDataReference* ref =
          delegate == nullptr ? nullptr : delegate->processed();
      if (ref != nullptr && ref->location() == etr_fb::DataLocation::SEGMENT &&
          ref->index() == index && delegate->id() != nullptr) {
        return delegate->id()->c_str();
      }
    }
  }
  return nullptr;
}

Error Program::load_mutable_data_into(size_t segments_index, size_t offset_index, size_t size,
                                      void* dst) const {
  if (loader_ == nullptr || header_.segment_base_offset == 0) {
    ETR_FAIL(Error::NotFound, "mutable data: the program has no segment data");
  }
  const auto* groups = program_->mutable_data_segments();
  if (groups == nullptr || segments_index >= groups->size()) {
    ETR_FAIL(Error::NotFound, "mutable_data_segments[%zu] is out of range (%" PRIu32 " entries)",
             segments_index, groups == nullptr ? 0u : groups->size());
  }
  const etr_fb::SubsegmentOffsets* group =
      groups->Get(static_cast<flatbuffers::uoffset_t>(segments_index));
  const auto* offsets = group == nullptr ? nullptr : group->offsets();
  if (offsets == nullptr || offset_index >= offsets->size()) {
    ETR_FAIL(Error::NotFound,
             "mutable_data_segments[%zu].offsets[%zu] is out of range (%" PRIu32 " offsets)",
             segments_index, offset_index, offsets == nullptr ? 0u : offsets->size());
  }
  const uint64_t offset = offsets->Get(static_cast<flatbuffers::uoffset_t>(offset_index));
  const auto* segments = program_->segments();
  if (segments == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "mutable data: the program has no segments table");
  }
  if (group->segment_index() >= segments->size()) {
    ETR_FAIL(Error::NotFound,
             "mutable_data_segments[%zu].segment_index %" PRIu32 " is out of range (%" PRIu32
             " segments)",
             segments_index, group->segment_index(), segments->size());
  }
  const etr_fb::DataSegment* s = segments->Get(group->segment_index());
  if (s == nullptr)
    ETR_FAIL(Error::InvalidProgram, "segments[%" PRIu32 "] is null", group->segment_index());
  if (!range_within(offset, size, s->size())) {
    ETR_FAIL(Error::InvalidArgument,
             "mutable data [offset %llu, +%zu) passes the end of the %llu-byte segment %" PRIu32,
             static_cast<unsigned long long>(offset), size,
             static_cast<unsigned long long>(s->size()), group->segment_index());
  }
  uint64_t start = 0;
  if (__builtin_add_overflow(header_.segment_base_offset, s->offset(), &start) ||
      __builtin_add_overflow(start, offset, &start) || start > SIZE_MAX) {
    ETR_FAIL(Error::InvalidProgram, "mutable data offset overflows");
  }
  return loader_->load_into(static_cast<size_t>(start), size, SegmentKind::Mutable, dst);
}

Result<Span<const uint8_t>> Program::inline_delegate_data(size_t index) const {
  const auto* list = program_->backend_delegate_data();
  if (list == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "delegate data %zu: the program has no backend_delegate_data",
             index);
  }
  if (index >= list->size()) {
    ETR_FAIL(Error::NotFound, "backend_delegate_data[%zu] is out of range (%" PRIu32 " entries)",
             index, list->size());
  }
  const etr_fb::BackendDelegateInlineData* d =
      list->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (d == nullptr || d->data() == nullptr) {
    ETR_FAIL(Error::InvalidProgram, "backend_delegate_data[%zu] holds no data", index);
  }
  return Span<const uint8_t>(d->data()->data(), d->data()->size());
}

Result<const char*> Program::output_flattening_encoding(const char* method_name) const {
  const auto* plans = program_->execution_plan();
  const flatbuffers::uoffset_t num_plans = plans == nullptr ? 0 : plans->size();
  for (flatbuffers::uoffset_t i = 0; i < num_plans; ++i) {
    const etr_fb::ExecutionPlan* plan = plans->Get(i);
    if (plan == nullptr || plan->name() == nullptr ||
        std::strcmp(plan->name()->c_str(), method_name) != 0) {
      continue;
    }
    const etr_fb::ContainerMetadata* meta = plan->container_meta_type();
    if (meta == nullptr || meta->encoded_out_str() == nullptr) {
      ETR_FAIL(Error::InvalidProgram, "method '%s' has no container_meta_type.encoded_out_str",
               method_name);
    }
    return meta->encoded_out_str()->c_str();
  }
  ETR_FAIL(Error::NotFound, "program has no method named '%s'", method_name);
}

bool Program::has_named_data_table() const { return program_->named_data() != nullptr; }

}  // namespace etr
