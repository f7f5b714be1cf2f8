#include "runtime/backend/backend.h"

namespace etr {
namespace {

// Constant-initialised: no constructor runs at startup.
BackendRegistry g_backends;

}  // namespace

Error BackendRegistry::add(const Backend& backend) {
  if (backend.name == nullptr || backend.backend == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "backend registry: name and backend must be non-null");
  }
  if (find(backend.name) != nullptr) {
    ETR_FAIL(Error::RegistrationAlreadyRegistered, "backend registry: '%s' is already registered",
             backend.name);
  }
  if (count_ >= kMaxBackends) {
    ETR_FAIL(Error::RegistrationExceedingMaxKernels,
             "backend registry: full (%zu backends; raise ETR_MAX_BACKENDS)", kMaxBackends);
  }
  entries_[count_++] = backend;
  return Error::Ok;
}

const BackendInterface* BackendRegistry::find(StringView name) const {
  for (size_t i = 0; i < count_; ++i) {
    if (StringView(entries_[i].name) == name) return entries_[i].backend;
  }
  return nullptr;
}

BackendRegistry& default_backend_registry() { return g_backends; }

Error set_backend_option(StringView name, Span<const BackendOption> options,
                         const BackendRegistry* registry) {
  const BackendRegistry& r = registry == nullptr ? default_backend_registry() : *registry;
  const BackendInterface* b = r.find(name);
  if (b == nullptr) {
    ETR_FAIL(Error::NotFound, "set_backend_option: no backend named '%.*s'",
             static_cast<int>(name.size()), name.data());
  }
  return b->set_option(options);
}

}  // namespace etr
