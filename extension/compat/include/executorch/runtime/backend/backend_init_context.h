// Compatibility layer (extension/compat): what a backend's init() receives:
// the method allocator for its state, the method name, the named data (the
// program's and the .ptd files', as etr merges them) and the load-time
// options given for this backend.
#pragma once

#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/named_data_map.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <variant>

namespace executorch {
namespace runtime {

class BackendInitContext final {
 public:
  explicit BackendInitContext(MemoryAllocator* runtime_allocator,
                              EventTracer* event_tracer = nullptr,
                              const char* method_name = nullptr,
                              const NamedDataMap* named_data_map = nullptr,
                              Span<const BackendOption> runtime_specs = {})
      : runtime_allocator_(runtime_allocator),
        event_tracer_(event_tracer),
        method_name_(method_name),
        named_data_map_(named_data_map),
        runtime_specs_(runtime_specs) {}

  MemoryAllocator* get_runtime_allocator() { return runtime_allocator_; }
  EventTracer* event_tracer() { return event_tracer_; }
  const char* get_method_name() const { return method_name_; }
  const NamedDataMap* get_named_data_map() const { return named_data_map_; }
  Span<const BackendOption> runtime_specs() const { return runtime_specs_; }

  // The load-time option `key` as a T (bool, int or const char*): NotFound
  // when absent, InvalidArgument when it has another type.
  template <typename T>
  Result<T> get_runtime_spec(const char* key) const {
    static_assert(
        std::is_same_v<T, bool> || std::is_same_v<T, int> || std::is_same_v<T, const char*>,
        "get_runtime_spec<T> only supports bool, int, and const char*");
    for (size_t i = 0; i < runtime_specs_.size(); ++i) {
      const BackendOption& opt = runtime_specs_[i];
      if (std::strcmp(opt.key, key) != 0) continue;
      if constexpr (std::is_same_v<T, const char*>) {
        if (auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&opt.value)) {
          return static_cast<const char*>(text->data());
        }
      } else if (auto* v = std::get_if<T>(&opt.value)) {
        return *v;
      }
      return Error::InvalidArgument;
    }
    return Error::NotFound;
  }

 private:
  MemoryAllocator* runtime_allocator_ = nullptr;
  EventTracer* event_tracer_ = nullptr;
  const char* method_name_ = nullptr;
  const NamedDataMap* named_data_map_ = nullptr;
  Span<const BackendOption> runtime_specs_;
};

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendInitContext;
}  // namespace executor
}  // namespace torch
