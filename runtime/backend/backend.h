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
class ThreadPool;

// One compile spec: a key and opaque value bytes (both point into the program).
struct CompileSpec {
  const char* key;  // NUL-terminated
  Span<const uint8_t> value;
};

// One backend option: a key with a bool, integer or string value (the same
// idea as the official runtime's backend options). Strings are not copied:
// they must outlive every call that receives the option.
struct BackendOption {
  enum class Kind : uint8_t { Bool, Int, String };
  const char* key;
  Kind kind;
  bool bool_value;
  int64_t int_value;
  const char* string_value;

  static constexpr BackendOption of(const char* key, bool v) {
    return BackendOption{key, Kind::Bool, v, 0, nullptr};
  }
  static constexpr BackendOption of(const char* key, int64_t v) {
    return BackendOption{key, Kind::Int, false, v, nullptr};
  }
  static constexpr BackendOption of(const char* key, int v) { return of(key, int64_t{v}); }
  static constexpr BackendOption of(const char* key, const char* v) {
    return BackendOption{key, Kind::String, false, 0, v};
  }
};

// A fixed-capacity set of options; set() replaces an existing key.
template <size_t N>
class BackendOptions final {
 public:
  template <typename T>
  [[nodiscard]] Error set(const char* key, T value) {
    const BackendOption o = BackendOption::of(key, value);
    for (size_t i = 0; i < size_; ++i) {
      if (StringView(options_[i].key) == StringView(key)) {
        options_[i] = o;
        return Error::Ok;
      }
    }
    if (size_ == N) ETR_FAIL(Error::OutOfResources, "backend options: all %zu slots are used", N);
    options_[size_++] = o;
    return Error::Ok;
  }
  Span<const BackendOption> view() const { return Span<const BackendOption>(options_, size_); }

 private:
  BackendOption options_[N] = {};
  size_t size_ = 0;
};

// Options for every delegate of one backend in a method (MethodLoadOptions).
struct DelegateOptions {
  const char* backend;  // the backend's registered name
  Span<const BackendOption> options;
};

// What a backend gets at init time. Does not take ownership of anything;
// everything outlives the delegate.
struct BackendInitContext {
  // Allocator for per-delegate state that lives as long as the method:
  // MethodLoadOptions::delegate_allocator when the caller set one (e.g. a
  // separate memory region for large weights), else the memory manager's
  // method allocator. Either way a bump allocator that may run out: a
  // backend that gets nullptr fails init with DelegateMemoryAllocationFailed,
  // naming what it was allocating.
  // MethodMeta::method_allocator_bytes() counts what delegates take here
  // when it is the method allocator.
  MemoryAllocator* method_allocator;
  // Named data the delegate may resolve weights from: the program's own
  // named data, then each external map given at load, in that order. Never null.
  const NamedDataMap* named_data;
  const char* method_name;
  // Index of this delegate in the method.
  size_t delegate_index;
  // The method's thread pool; null means single-threaded.
  ThreadPool* thread_pool;
  // Options given for this backend in MethodLoadOptions (may be empty).
  Span<const BackendOption> options;
};

struct BackendExecutionContext {
  // Scratch reset after the call; may be null.
  MemoryAllocator* temp_allocator;
  const char* method_name;
  // The method's thread pool; null means single-threaded.
  ThreadPool* thread_pool;
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

  // Whether the delegate writes argument `index` of its calls (an output)
  // or only reads it; Unknown when the backend does not say (the default).
  // The method loader plans memory with it (runtime/executor/view_elision.cpp);
  // Unknown is always safe.
  enum class ArgAccess : uint8_t { Unknown, Read, Write };
  virtual ArgAccess arg_access(DelegateHandle* handle, size_t index) const {
    (void)handle;
    (void)index;
    return ArgAccess::Unknown;
  }

  // Releases what init() acquired. Must tolerate a null handle.
  virtual void destroy(DelegateHandle* handle) const { (void)handle; }

  // Process-wide options (set_backend_option). The default knows no option:
  // NotSupported names the first key.
  [[nodiscard]] virtual Error set_option(Span<const BackendOption> options) const {
    if (options.size() == 0) return Error::Ok;
    ETR_FAIL(Error::NotSupported, "backend option '%s' is not supported", options[0].key);
  }
  // Fills the values of the requested keys; NotSupported for an unknown key.
  [[nodiscard]] virtual Error get_option(Span<BackendOption> options) const {
    if (options.size() == 0) return Error::Ok;
    ETR_FAIL(Error::NotSupported, "backend option '%s' is not supported", options[0].key);
  }
};

struct Backend {
  const char* name;
  // Does not take ownership; must outlive every method that uses it.
  const BackendInterface* backend;
};

// A fixed-capacity table of backends by name. A method uses the registry in
// its MethodLoadOptions, or default_backend_registry().
class BackendRegistry final {
 public:
  static constexpr size_t kMaxBackends = ETR_MAX_BACKENDS;
  constexpr BackendRegistry() : entries_{}, count_(0) {}

  // Fails with InvalidArgument for a null name or backend,
  // RegistrationAlreadyRegistered on a duplicate name and
  // RegistrationExceedingMaxKernels when kMaxBackends are registered. Does
  // not take ownership; name and backend must outlive the registry's users.
  [[nodiscard]] Error add(const Backend& backend);
  // The backend registered as `name`, or nullptr.
  const BackendInterface* find(StringView name) const;
  size_t size() const { return count_; }
  // Name of backend i (< size()), else nullptr.
  const char* name_at(size_t i) const { return i < count_ ? entries_[i].name : nullptr; }
  void clear() { count_ = 0; }

 private:
  Backend entries_[kMaxBackends];
  size_t count_;
};

// The process-wide registry.
BackendRegistry& default_backend_registry();

// Passes options to the backend registered as `name` in `registry`
// (default: the process-wide one); NotFound when there is none.
[[nodiscard]] Error set_backend_option(StringView name, Span<const BackendOption> options,
                                       const BackendRegistry* registry = nullptr);

// Shorthands for the default registry.
[[nodiscard]] inline Error register_backend(const Backend& backend) {
  return default_backend_registry().add(backend);
}
inline const BackendInterface* find_backend(StringView name) {
  return default_backend_registry().find(name);
}
inline size_t num_registered_backends() { return default_backend_registry().size(); }
inline const char* registered_backend_name(size_t i) {
  return default_backend_registry().name_at(i);
}
// Removes every backend from the default registry (tests only).
inline void clear_backends_for_testing() { default_backend_registry().clear(); }

}  // namespace etr
