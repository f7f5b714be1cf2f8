// Program: a loaded, verified .pte file. Methods are loaded from it.
//
// Trust boundary: Program::load verifies the whole flatbuffer structure
// (unless the caller explicitly opts out for trusted images) and checks the
// extended header and segment table against the data source size. Everything
// index- or size-related inside a method is validated at load_method. Nothing
// is validated during execute.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/data_loader.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/method_load_options.h"
#include "runtime/executor/method_meta.h"

namespace etr_fb {
struct Program;
}

namespace etr {

class Method;
class KernelRegistry;

// Parsed "eh00" extended header.
struct ExtendedHeader {
  uint32_t length = 0;  // 24 or 32 (or more) when present
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
  // Parses the header at `data` (at least 8 + 32 bytes are examined when
  // available, `size` bytes in all). NotFound when there is no header,
  // InvalidProgram when the magic is present but the header is malformed.
  static Result<ExtendedHeader> parse(const void* data, size_t size);
};

class Program final {
 public:
  enum class Verification : uint8_t {
    // Full flatbuffer verification of the program (default).
    Full = 0,
    // Skip the flatbuffer verifier. Only for images that are trusted (e.g.
    // burned into flash by the same build). Method-level semantic checks
    // still run.
    Trusted = 1,
  };

  // Loads and verifies a program from `loader`. Does not take ownership;
  // `loader` must outlive the Program and every Method loaded from it.
  [[nodiscard]] static Result<Program> load(DataLoader* loader,
                                            Verification verification = Verification::Full);

  // A moved Program's named data follows it (set here, so that named_data()
  // writes nothing and Modules on several threads may share one Program).
  Program(Program&& other) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  Program& operator=(Program&&) = delete;
  ~Program() = default;

  size_t num_methods() const;
  // Name of method i, NUL-terminated, pointing into the program.
  [[nodiscard]] Result<const char*> get_method_name(size_t index) const;
  // The MethodMeta points into this Program (method_allocator_bytes() loads
  // the method from it): use it only while the Program lives and is not moved.
  [[nodiscard]] Result<MethodMeta> method_meta(const char* method_name) const;

  // Loads a method. `memory` provides all memory (the method allocator takes
  // the method's tables, kernel prepare state and delegate state: exactly
  // MethodMeta::method_allocator_bytes(options) bytes over a 64-byte-aligned
  // buffer, or grows: PlatformArena); `options` names the kernel and
  // backend registries, external data, thread pool and limits (see
  // method_load_options.h). Does not take ownership; all must outlive the Method.
  [[nodiscard]] Result<Method> load_method(
      const char* method_name, MemoryManager* memory,
      const MethodLoadOptions& options = MethodLoadOptions()) const;

  // Named data stored in the program itself (may be empty).
  const NamedDataMap& named_data() const { return named_data_; }
  bool has_extended_header() const { return header_.length != 0; }
  const ExtendedHeader& extended_header() const { return header_; }
  size_t program_size() const { return program_data_.size(); }

  // Internal: used by method loading.
  const etr_fb::Program* flatbuffer() const { return program_; }
  // Constant tensor data for data_buffer_idx `index` of `nbytes` bytes, or an error
  // that says which bound failed.
  [[nodiscard]] Result<const void*> constant_data(uint32_t index, size_t nbytes) const;
  // Loads segment `index` (range-checked against the source at Program::load).
  [[nodiscard]] Result<FreeableBuffer> load_segment(size_t index, SegmentKind kind) const;
  DataLoader* loader() const { return loader_; }

  // Internal: the official API's Program (extension/compat) reads these.
  // A Program over a flatbuffer root that the caller built, verified and
  // keeps alive, with its segment data at `segment_base_offset` in `loader`
  // (no segment data when 0). Nothing is loaded or checked: constants are
  // not available, and only the calls below and the method queries answer.
  static Program over_flatbuffer(DataLoader* loader, uint64_t segment_base_offset,
                                 const etr_fb::Program* program);
  // Program.segments[index] as the official Program::LoadSegment gives it:
  // NotFound when the program has no segment data or `index` is out of
  // range, InvalidProgram when it has no segments table.
  [[nodiscard]] Result<FreeableBuffer> load_segment_at(size_t index, SegmentKind kind) const;
  // Copies `size` bytes of mutable tensor data, offsets[offset_index] of
  // mutable_data_segments[segments_index], into `dst`: NotFound for an index
  // out of range, InvalidProgram when the segments table is absent,
  // InvalidArgument when the bytes pass the end of their segment.
  [[nodiscard]] Error load_mutable_data_into(size_t segments_index, size_t offset_index,
                                             size_t size, void* dst) const;
  // Inline delegate data `index` (Program.backend_delegate_data):
  // InvalidProgram when the program has no such table, NotFound when out of
  // range.
  [[nodiscard]] Result<Span<const uint8_t>> inline_delegate_data(size_t index) const;
  // The index in Program.segments of the segment a load of [offset, offset +
  // size) from the loader reads (offset counted from the start of the
  // source), or NotFound; empty segments, which may share an offset, never
  // match. With it, the id of the first delegate whose processed data is that
  // segment (null when none is).
  [[nodiscard]] Result<size_t> segment_index_at(size_t offset, size_t size) const;
  const char* delegate_id_of_segment(size_t index) const;
  // The pytree encoding of a method's outputs
  // (container_meta_type.encoded_out_str): NotFound when no method has that
  // name, InvalidProgram when the string is absent.
  [[nodiscard]] Result<const char*> output_flattening_encoding(const char* method_name) const;
  // True when the program has a named_data table.
  bool has_named_data_table() const;

 private:
  class PteNamedData final : public NamedDataMap {
   public:
    const Program* program = nullptr;
    Result<FreeableBuffer> get_data(StringView key) const override;
    Result<TensorLayout> get_layout(StringView key) const override;
    size_t num_keys() const override;
    Result<const char*> key_at(size_t index) const override;
  };

  Program() { named_data_.program = this; }
  [[nodiscard]] Result<Method> load_method_impl(const char* method_name, MemoryManager* memory,
                                                const MethodLoadOptions& options) const;
  [[nodiscard]] Error probe_header(size_t file_size);
  [[nodiscard]] Error check_segments(size_t source_size);
  [[nodiscard]] Error load_constants();

  DataLoader* loader_ = nullptr;
  FreeableBuffer program_data_;
  FreeableBuffer constant_segment_;
  const etr_fb::Program* program_ = nullptr;
  ExtendedHeader header_;
  // Set when constants come from the legacy in-flatbuffer constant_buffer.
  bool legacy_constants_ = false;
  PteNamedData named_data_;
};

}  // namespace etr
