// libFuzzer harness for the Vulkan delegate's init: header and flatbuffer
// checks, operator planning, and (for payloads that pass them) buffer,
// pipeline and command-buffer creation on lavapipe. The input is a payload,
// or any bytes containing one (so whole .pte fixtures seed it: the harness
// starts at the first VH00 header it finds). Every named-data key resolves
// to zero bytes, so constants never stop the fuzzer early.
#include <cstdlib>

#include "backends/vulkan/vulkan_backend.h"
#include "test/support/delegate_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The same CPU driver the tests use, whatever GPU the machine has.
  static const int icd =
      setenv("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 0);
  (void)icd;
  return etr::fuzz::run_delegate_init<size_t{1} << 20>(etr::vulkan_backend(), "VH00", data, size);
}
