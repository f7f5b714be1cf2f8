// libFuzzer harness for the .npy reader.
#include <cstdint>

#include "extension/tensor/npy.h"
#include "runtime/platform/platform.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Rejections are logged; drop the messages so the fuzzer is not slowed by
  // stderr output.
  static bool initialised = [] {
    etr::PlatformHooks hooks{};
    hooks.log = [](etr::LogLevel, const char*, int, const char*) {};
    etr::set_platform_hooks(hooks);
    return true;
  }();
  (void)initialised;
  etr::Result<etr::HostTensor> t = etr::parse_npy(data, size);
  if (t.ok()) (void)t->tensor().numel();
  return 0;
}
