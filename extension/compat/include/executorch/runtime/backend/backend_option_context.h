// Compatibility layer (extension/compat): the context of a backend's
// set_option/get_option (empty, as in the official runtime).
#pragma once

namespace executorch {
namespace runtime {
class BackendOptionContext final {
 public:
  explicit BackendOptionContext() {}
};
}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::BackendOptionContext;
}  // namespace executor
}  // namespace torch
