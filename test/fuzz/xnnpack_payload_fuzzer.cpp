// libFuzzer harness for the XNNPACK delegate's init: payload parsing, node
// checks, value placement and XNNPACK subgraph/runtime creation. The input
// is a payload, or any bytes containing one (so whole .pte fixtures seed it:
// the harness starts at the first XH00 header it finds). Every named-data
// key resolves to zero bytes, so constants never stop the fuzzer early.
#include "backends/xnnpack/xnnpack_backend.h"
#include "test/support/delegate_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // 16 MiB of method allocator: buffers and packed weights.
  return etr::fuzz::run_delegate_init<size_t{16} << 20>(etr::xnnpack_backend(), "XH00", data, size);
}
