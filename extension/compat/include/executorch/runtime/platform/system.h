// Compatibility layer (extension/compat): the shared library an address
// belongs to (for messages). etr links statically: always "NOT_SUPPORTED".
#pragma once

static constexpr const char* DYNAMIC_LIBRARY_NOT_SUPPORTED = "NOT_SUPPORTED";
static constexpr const char* DYNAMIC_LIBRARY_NOT_FOUND = "NOT_FOUND";

extern "C" {
inline const char* et_pal_get_shared_library_name(const void* addr) {
  (void)addr;
  return DYNAMIC_LIBRARY_NOT_SUPPORTED;
}
}
