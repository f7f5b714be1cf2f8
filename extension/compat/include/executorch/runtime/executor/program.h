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
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace executorch {
namespace runtime {

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

  // Constant data of `buffer_idx` (nbytes of it); InvalidArgument when out of range.
  Result<const void*> get_constant_buffer_data(size_t buffer_idx, size_t nbytes) const;
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
  // NotFound (logged) when no method has that name.
  Result<MethodMeta> method_meta(const char* method_name) const;

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
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  Program& operator=(Program&&) = delete;

  std::unique_ptr<State> state_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Program;
}  // namespace executor
}  // namespace torch
