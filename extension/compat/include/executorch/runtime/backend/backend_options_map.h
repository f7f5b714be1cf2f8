// Compatibility layer (extension/compat): load-time options per backend,
// passed to Program::load_method (and given to each delegate's init() as
// BackendInitContext::runtime_specs()). Does not own the option arrays:
// they must outlive the load.
#pragma once

#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/platform/assert.h>

#include <cstddef>
#include <cstring>

namespace executorch {
namespace runtime {

class LoadBackendOptionsMap final {
 public:
  LoadBackendOptionsMap() : size_(0) {
    for (size_t i = 0; i < kMaxBackends; ++i) entries_[i].backend_id[0] = '\0';
  }

  // Sets (or replaces) the options of `backend_id`. InvalidArgument for an
  // empty id, an id of kMaxBackendIdLength characters or more, or a ninth
  // backend.
  Error set_options(const char* backend_id, Span<BackendOption> options) {
    if (backend_id == nullptr || backend_id[0] == '\0') return Error::InvalidArgument;
    return set_impl(backend_id, options);
  }
  // From a builder with backend_id() and view() (e.g. a backend's own
  // options class).
  template <typename Builder>
  Error set_options(Builder& builder) {
    return set_impl(builder.backend_id(), builder.view());
  }

  // The options of `backend_id` (empty when none).
  Span<const BackendOption> get_options(const char* backend_id) const {
    const Entry* e = find(backend_id);
    return e == nullptr ? Span<const BackendOption>()
                        : Span<const BackendOption>(e->options.data(), e->options.size());
  }
  bool has_options(const char* backend_id) const { return find(backend_id) != nullptr; }
  size_t size() const { return size_; }

  struct EntryView {
    const char* backend_id = nullptr;
    Span<const BackendOption> options;
  };
  EntryView entry_at(size_t index) const {
    ET_DCHECK_MSG(index < size_, "entry_at index %zu out of bounds (size=%zu)", index, size_);
    return EntryView{
        entries_[index].backend_id,
        Span<const BackendOption>(entries_[index].options.data(), entries_[index].options.size())};
  }

 private:
  static constexpr size_t kMaxBackends = 8;
  static constexpr size_t kMaxBackendIdLength = 64;
  struct Entry {
    char backend_id[kMaxBackendIdLength];
    Span<BackendOption> options;
  };

  const Entry* find(const char* backend_id) const {
    if (backend_id == nullptr) return nullptr;
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(entries_[i].backend_id, backend_id) == 0) return &entries_[i];
    }
    return nullptr;
  }
  Error set_impl(const char* backend_id, Span<BackendOption> options) {
    for (size_t i = 0; i < size_; ++i) {
      if (std::strcmp(entries_[i].backend_id, backend_id) == 0) {
        entries_[i].options = options;
        return Error::Ok;
      }
    }
    const size_t len = std::strlen(backend_id);
    if (size_ >= kMaxBackends || len >= kMaxBackendIdLength) return Error::InvalidArgument;
    std::memcpy(entries_[size_].backend_id, backend_id, len + 1);
    entries_[size_].options = options;
    ++size_;
    return Error::Ok;
  }

  Entry entries_[kMaxBackends];
  size_t size_;
};

}  // namespace runtime
}  // namespace executorch
