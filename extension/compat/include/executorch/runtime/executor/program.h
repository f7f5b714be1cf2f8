// Compatibility layer (extension/compat): the official Program, a loaded and
// verified .pte file, as a face over etr::Program. Any official DataLoader
// works (etr reads the loaders of extension/data_loader directly, others
// through load()/load_into()). Methods are loaded with the caller's
// MemoryManager, whose allocators etr uses as they are.
#pragma once

#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/pte_data_map.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

// The root table of the official generated schema
// (executorch/schema/program_generated.h, not included here).
namespace executorch_flatbuffer {
struct Program;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {
namespace testing {
// Upstream's tests reach the private members below through this class.
class ProgramTestFriend;
}  // namespace testing

class Program final {
 public:
  // etr always verifies the whole flatbuffer (both levels give that check).
  enum class Verification : uint8_t {
    Minimal,
    InternalConsistency,
  };

  static constexpr uint32_t kMaxSupportedSchemaVersion = 0;

  // Loads a program from `loader` (not owned; it must outlive the Program
  // and its methods). InvalidArgument for a null loader, InvalidProgram for
  // bytes that are not a valid program, the loader's error when a read fails.
  ET_NODISCARD static Result<Program> load(DataLoader* loader,
                                           Verification verification = Verification::Minimal);
  ET_DEPRECATED ET_NODISCARD static Result<Program> Load(
      DataLoader* loader, Verification verification = Verification::Minimal) {
    return load(loader, verification);
  }

  Program(Program&&) noexcept;
  ~Program();

  // Constant data of `buffer_idx` (nbytes of it); InvalidArgument when the
  // index or the size is out of range.
  Result<const void*> get_constant_buffer_data(size_t buffer_idx, size_t nbytes) const;
  // The named data stored in the program itself (its segments); NotFound
  // when it has none. Owned by the Program.
  Result<const NamedDataMap*> get_named_data_map() const;
  size_t num_methods() const;
  // InvalidArgument when `method_index` >= num_methods().
  Result<const char*> get_method_name(size_t method_index) const;
  // Loads a method. `named_data_map` (a .ptd file) is searched after the
  // program's own named data; `backend_options` go to each delegate's init
  // (BackendInitContext::runtime_specs). Not yet wired (NotSupported when
  // given): a method-local `kernel_registry`. An `event_tracer` (e.g.
  // executorch::etdump::ETDumpGen) sees the load and every execute as in the
  // official runtime; the method then runs without kernel fusion.
  Result<Method> load_method(const char* method_name, MemoryManager* memory_manager,
                             EventTracer* event_tracer = nullptr,
                             const NamedDataMap* named_data_map = nullptr,
                             const LoadBackendOptionsMap* backend_options = nullptr,
                             Span<const Kernel> kernel_registry = {}) const;
  // InvalidArgument (logged) when no method has that name.
  Result<MethodMeta> method_meta(const char* method_name) const;
  // The pytree encoding of the method's outputs (ExecutionPlan
  // container_meta_type.encoded_out_str); InvalidArgument when no method has
  // that name, InvalidProgram when the program does not carry the string.
  ET_DEPRECATED Result<const char*> get_output_flattening_encoding(
      const char* method_name = "forward") const;

  enum HeaderStatus {
    CompatibleVersion,
    IncompatibleVersion,
    NotPresent,
    ShortData,
  };
  static constexpr size_t kMinHeadBytes = 64;
  // Looks at the first bytes of a file for the program identifier ("ET12").
  static HeaderStatus check_header(const void* data, size_t size);

  // Internal (extension/compat).
  struct State;
  explicit Program(std::unique_ptr<State> state);
  State* internal_state() const { return state_.get(); }

 private:
  friend class testing::ProgramTestFriend;

  // The program's flatbuffer root, read through the official generated
  // schema (the bytes etr verified at load).
  const executorch_flatbuffer::Program* get_internal_program() const { return internal_program_; }
  // Inline delegate data `index` (Program.backend_delegate_data);
  // InvalidProgram when the program has none, NotFound when out of range.
  Error get_backend_delegate_data(size_t index, const void** out_data, size_t* out_size) const;
  // Loads segment `segment_info.segment_index` of Program.segments (the
  // type and descriptor go to the loader); InvalidProgram when the program
  // has no segments table, NotFound when the index is out of range.
  ET_NODISCARD Result<FreeableBuffer> LoadSegment(
      const DataLoader::SegmentInfo& segment_info) const;
  // Copies `size` bytes of the mutable data at
  // mutable_data_segments[mutable_data_segments_index].offsets[offset_index]
  // into `buffer`: NotFound for an index out of range, InvalidProgram when
  // the segments table is absent, InvalidArgument when the bytes pass the
  // segment's end.
  ET_NODISCARD Error load_mutable_subsegment_into(size_t mutable_data_segments_index,
                                                  size_t offset_index, size_t size,
                                                  void* buffer) const;

  // A Program over a flatbuffer the caller built and keeps alive, without an
  // etr program behind it: only the members above answer for it (the others
  // report InvalidState). `loader` is kept when segment_base_offset > 0.
  Program(DataLoader* loader, size_t segment_base_offset, FreeableBuffer&& program_data,
          const executorch_flatbuffer::Program* internal_program,
          FreeableBuffer&& constant_segment_data,
          std::optional<internal::PteDataMap>&& pte_data_map);

  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  Program& operator=(Program&&) = delete;

  std::unique_ptr<State> state_;
  const executorch_flatbuffer::Program* internal_program_ = nullptr;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Program;
}  // namespace executor
}  // namespace torch
