// libFuzzer harness for the .npy reader.
#include <cstdint>

#include "extension/tensor/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  etr::HostResult<etr::HostTensor> t = etr::parse_npy(data, size);
  if (t.ok()) (void)t->tensor().numel();
  return 0;
}
