// BackendInterface: how a delegate (XNNPACK, Vulkan, a test backend) plugs in.
//
// Lifecycle per delegate in a method: init() once at method load, execute()
// once per DelegateCall, destroy() when the method goes away.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

#ifndef ETR_MAX_BACKENDS
#define ETR_MAX_BACKENDS 16
#endif

namespace etr {

class NamedDataMap;

// One compile spec: a key and opaque value bytes (both point into the program).
struct CompileSpec {
  const char* key;  // NUL-terminated
  Span<const uint8_t> value;
};

// What a backend gets at init time. Does not take ownership of anything.
struct BackendInitContext {
  // Allocator for per-delegate state that lives as long as the method.
  MemoryAllocator* method_allocator;
  // Named data the delegate may resolve weights from (program + external); may be null.
  const NamedDataMap* named_data;
  const char* method_name;
};

struct BackendExecutionContext {
  // Scratch reset after the call; may be null.
  MemoryAllocator* temp_allocator;
  const char* method_name;
};

using DelegateHandle = void;

class BackendInterface {
 public:
  virtual ~BackendInterface() = default;

  // False when the backend cannot run on this machine (e.g. no device).
  virtual bool is_available() const = 0;

  // Prepares `processed` (the delegate blob) for execution. The backend may
  // release `processed` once it no longer needs the bytes. Returns an opaque
  // handle (allocated from ctx.method_allocator or owned by the backend).
  [[nodiscard]] virtual Result<DelegateHandle*> init(BackendInitContext& ctx,
                                                     FreeableBuffer* processed,
                                                     Span<const CompileSpec> specs) const = 0;

  // Runs the delegate; `args` are the DelegateCall's values (inputs, then outputs).
  [[nodiscard]] virtual Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                                      Span<EValue*> args) const = 0;

  // Releases what init() acquired. Must tolerate a null handle.
  virtual void destroy(DelegateHandle* handle) const { (void)handle; }
};

struct Backend {
  const char* name;
  // Does not take ownership; must outlive every method that uses it.
  const BackendInterface* backend;
};

// Registers a backend under `name` in the process-wide registry. Fails with
// RegistrationAlreadyRegistered on a duplicate name and
// RegistrationExceedingMaxKernels when ETR_MAX_BACKENDS are registered.
[[nodiscard]] Error register_backend(const Backend& backend);

// The backend registered as `name`, or nullptr.
const BackendInterface* find_backend(StringView name);

size_t num_registered_backends();
// Name of registered backend i (< num_registered_backends()).
const char* registered_backend_name(size_t i);

// Removes every backend (tests only).
void clear_backends_for_testing();

}  // namespace etr
