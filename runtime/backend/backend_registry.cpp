#include "runtime/backend/backend.h"

namespace etr {
namespace {

struct BackendTable {
  Backend entries[ETR_MAX_BACKENDS];
  size_t count;
};

BackendTable g_backends = {};

}  // namespace

Error register_backend(const Backend& backend) {
  if (backend.name == nullptr || backend.backend == nullptr) {
    ETR_FAIL(Error::InvalidArgument, "register_backend: name and backend must be non-null");
  }
  if (find_backend(backend.name) != nullptr) {
    ETR_FAIL(Error::RegistrationAlreadyRegistered, "register_backend: '%s' is already registered",
             backend.name);
  }
  if (g_backends.count >= ETR_MAX_BACKENDS) {
    ETR_FAIL(Error::RegistrationExceedingMaxKernels,
             "register_backend: registry full (%d backends)", ETR_MAX_BACKENDS);
  }
  g_backends.entries[g_backends.count++] = backend;
  return Error::Ok;
}

const BackendInterface* find_backend(StringView name) {
  for (size_t i = 0; i < g_backends.count; ++i) {
    if (StringView(g_backends.entries[i].name) == name) return g_backends.entries[i].backend;
  }
  return nullptr;
}

size_t num_registered_backends() { return g_backends.count; }

const char* registered_backend_name(size_t i) {
  return i < g_backends.count ? g_backends.entries[i].name : nullptr;
}

void clear_backends_for_testing() { g_backends.count = 0; }

}  // namespace etr
