// Compatibility layer (extension/compat): the official backend interface.
// A BackendInterface registered with register_backend() joins etr's backend
// registry under its name: a program whose delegate names it gets init()
// with the delegate's payload, compile specs, the named data, the method
// allocator and the load-time options, then execute() with the delegate
// call's values (official EValues viewing etr's: tensors shared, not
// copied), and destroy() when the method is destroyed.
#pragma once

#include <executorch/runtime/backend/backend_execution_context.h>
#include <executorch/runtime/backend/backend_init_context.h>
#include <executorch/runtime/backend/backend_option_context.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/compiler.h>

#include <cstddef>

namespace executorch {
namespace runtime {

struct SizedBuffer {
  void* buffer;
  size_t nbytes;
};

struct CompileSpec {
  const char* key;  // NUL-terminated
  SizedBuffer value;
};

using DelegateHandle = void;

class BackendInterface {
 public:
  virtual ~BackendInterface() = 0;

  ET_NODISCARD virtual bool is_available() const = 0;

  // Prepares one delegate: `processed` is its payload (the backend may
  // Free() it once it no longer needs it). Returns the handle execute() and
  // destroy() receive.
  ET_NODISCARD virtual Result<DelegateHandle*> init(BackendInitContext& context,
                                                    FreeableBuffer* processed,
                                                    ArrayRef<CompileSpec> compile_specs) const = 0;

  // Runs the delegate on `args` (its inputs then its outputs).
  ET_NODISCARD virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                                     Span<EValue*> args) const = 0;

  ET_NODISCARD virtual Error set_option(ET_UNUSED BackendOptionContext& context,
                                        const executorch::runtime::Span<BackendOption>& options) {
    (void)options;
    return Error::Ok;
  }
  ET_NODISCARD virtual Error get_option(ET_UNUSED BackendOptionContext& context,
                                        executorch::runtime::Span<BackendOption>& options) {
    (void)options;
    return Error::Ok;
  }

  virtual void destroy(ET_UNUSED DelegateHandle* handle) const {}
};

// The backend registered through this API as `name`, or nullptr.
BackendInterface* get_backend_class(const char* name);

struct Backend {
  const char* name;  // static storage
  BackendInterface* backend;
};

// Registers a backend (not owned). InvalidArgument when the name is taken
// (by any backend etr knows), Internal when the registry is full.
ET_NODISCARD Error register_backend(const Backend& backend);

// Every backend etr knows (its own, e.g. XnnpackBackend, and those
// registered here).
size_t get_num_registered_backends();
// InvalidArgument past get_num_registered_backends().
Result<const char*> get_backend_name(size_t index);

// Runtime options for a backend: NotFound for an unknown name.
Error set_option(
    const char* backend_name,
    const executorch::runtime::Span<executorch::runtime::BackendOption> backend_options);
Error get_option(const char* backend_name,
                 executorch::runtime::Span<executorch::runtime::BackendOption> backend_options);

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Backend;
using ::executorch::runtime::CompileSpec;
using ::executorch::runtime::DelegateHandle;
using ::executorch::runtime::get_backend_class;
using ::executorch::runtime::register_backend;
using ::executorch::runtime::SizedBuffer;
using PyTorchBackendInterface = ::executorch::runtime::BackendInterface;
}  // namespace executor
}  // namespace torch
